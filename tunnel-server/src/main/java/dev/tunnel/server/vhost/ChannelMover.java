package dev.tunnel.server.vhost;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a public connection onto another event loop: a vhost connection is accepted on any
 * loop, but it can only use a proxy's streams on the loop of that proxy's client session (every
 * method of a mux stream runs there). So once its first request (or ClientHello) is routed, the
 * connection is deregistered from its loop and registered on the session's; nothing is read
 * meanwhile ({@code AUTO_READ} is off). A read the vhost asked for before (it keeps one armed
 * while a response is awaited) stays asked for on the new loop, and what it brings waits in the
 * vhost handler until the request before it is done.
 */
final class ChannelMover {
    private static final Logger log = LoggerFactory.getLogger(ChannelMover.class);

    private ChannelMover() {
    }

    /** Runs {@code then} on {@code loop} with {@code ch} registered there; closes {@code ch} if the move fails. */
    static void moveTo(Channel ch, EventLoop loop, Runnable then) {
        if (ch.eventLoop() == loop) {
            then.run();
            return;
        }
        ch.deregister().addListener(deregistered -> {
            if (!deregistered.isSuccess()) {
                log.debug("{} could not leave its event loop: {}", ch, deregistered.cause().toString());
                ch.unsafe().closeForcibly();
                return;
            }
            loop.register(ch).addListener(registered -> {
                if (!registered.isSuccess()) {
                    log.debug("{} could not join event loop {}: {}", ch, loop, registered.cause().toString());
                    ch.unsafe().closeForcibly();
                    return;
                }
                then.run();
            });
        });
    }
}
