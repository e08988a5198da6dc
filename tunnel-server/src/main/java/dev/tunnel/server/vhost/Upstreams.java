package dev.tunnel.server.vhost;

import dev.tunnel.server.proxy.AppConnection;
import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The connection to a local app that a vhost connection's requests go on now, and how a routed
 * request gets one: the current one when it goes to the same proxy and the app has not closed
 * it; else the current one is ended (FIN) and a new one opened ({@link VhostTarget#open}). A
 * proxy's connections are opened on its session's event loop and used on their own (the
 * session's for a stream, a work connection's in pool mode), so the public connection moves
 * there first ({@link ChannelMover}).
 *
 * <p>Threading: the connection's event loop (which changes with the moves).
 */
final class Upstreams {
    private final ChannelHandlerContext ctx;
    private final Upstream.Listener listener;
    private final LoopAffinity affinity;
    private final Runnable beforeMove;
    private Upstream current;

    /**
     * @param affinity   told where each new connection went (may be null)
     * @param beforeMove runs on the connection's loop before it leaves it (to stop its timer)
     */
    Upstreams(ChannelHandlerContext ctx, Upstream.Listener listener, LoopAffinity affinity, Runnable beforeMove) {
        this.ctx = ctx;
        this.listener = listener;
        this.affinity = affinity;
        this.beforeMove = beforeMove;
    }

    /** The upstream in use, or null. */
    Upstream current() {
        return current;
    }

    /**
     * Makes {@link #current()} a usable upstream to {@code route}'s proxy, then calls {@code done}
     * with true, or with false when none could be opened (the proxy's session is gone or at its
     * limits). Calls it at once when nothing has to wait, else later on the connection's new loop;
     * not at all if the connection could not move (it is closed then).
     */
    void forRoute(Entry<HttpRoute> route, Consumer<Boolean> done) {
        VhostTarget target = route.target().target();
        if (current != null && (current.target() != target || !current.usable())) {
            end(false);
        }
        if (current != null) {
            done.accept(true);
            return;
        }
        onLoop(target.eventLoop(), () -> target.open(ctx.channel(), conn -> {
            if (ctx.executor().inEventLoop()) {
                opened(route, conn, done);
            } else { // a pool work connection's loop: the connection is still on the session's
                ctx.executor().execute(() -> opened(route, conn, done));
            }
        }));
    }

    private void opened(Entry<HttpRoute> route, AppConnection conn, Consumer<Boolean> done) {
        if (conn == null) {
            done.accept(false);
            return;
        }
        if (conn.eventLoop() == ctx.channel().eventLoop()) {
            adopt(route, conn, done);
            return;
        }
        // A work connection on another loop: if the public connection closes during its move
        // there, nobody else would end the work connection.
        AtomicBoolean claimed = new AtomicBoolean();
        ctx.channel().closeFuture().addListener(f -> {
            if (claimed.compareAndSet(false, true)) {
                conn.eventLoop().execute(conn::reset);
            }
        });
        onLoop(conn.eventLoop(), () -> {
            if (claimed.compareAndSet(false, true)) {
                adopt(route, conn, done);
            }
        });
    }

    private void adopt(Entry<HttpRoute> route, AppConnection conn, Consumer<Boolean> done) {
        if (!ctx.channel().isActive()) {
            conn.reset();
            done.accept(false);
            return;
        }
        current = new Upstream(ctx, route, conn, listener);
        if (affinity != null) {
            affinity.routedTo(conn.eventLoop());
        }
        done.accept(true);
    }

    private void onLoop(EventLoop loop, Runnable then) {
        if (ctx.channel().eventLoop() == loop) {
            then.run();
        } else {
            beforeMove.run();
            ChannelMover.moveTo(ctx.channel(), loop, then);
        }
    }

    /** Ends the current upstream, if any: FIN, or a reset when {@code abort}. */
    void end(boolean abort) {
        if (current != null) {
            current.detach(abort);
            current = null;
        }
    }

    /** Ends it only if the app closed it: a kept-alive connection opens a new one for its next request. */
    void endIfUnusable() {
        if (current != null && !current.usable()) {
            end(false);
        }
    }

    /** Lets go of the current upstream without ending it: it was reset, or taken over by a relay. */
    Upstream forget() {
        Upstream up = current;
        current = null;
        return up;
    }
}
