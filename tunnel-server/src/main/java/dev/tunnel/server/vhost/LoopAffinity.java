package dev.tunnel.server.vhost;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;

/**
 * Picks the event loop a new connection on the vhost HTTP port is registered on: the loop of
 * the proxy the latest request was routed to. A connection can only use a proxy's streams on
 * the loop of that proxy's client session, so one registered elsewhere moves there
 * ({@link ChannelMover}: a deregister and a register) on its first request. With this guess,
 * connections to the same client as the previous one (the common case: one client serves
 * every domain) need no move; a wrong guess costs only that move. Before any route, the
 * group's own choice.
 *
 * <p>Thread-safe: routes are recorded from every session loop, read on the accepting loop.
 */
final class LoopAffinity {
    private final EventLoopGroup group;
    private volatile EventLoop latest;

    LoopAffinity(EventLoopGroup group) {
        this.group = group;
    }

    /** Where to register a connection just accepted. */
    EventLoop next() {
        EventLoop loop = latest;
        return loop != null && !loop.isShuttingDown() ? loop : group.next();
    }

    /** A request was routed to a proxy whose session runs on {@code loop}. */
    void routedTo(EventLoop loop) {
        if (latest != loop) {
            latest = loop;
        }
    }
}
