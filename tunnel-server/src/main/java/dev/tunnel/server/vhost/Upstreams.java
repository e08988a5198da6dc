package dev.tunnel.server.vhost;

import dev.tunnel.server.proxy.AppConnection;
import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The connection to a local app that a vhost connection's requests go on now, and how a routed
 * request gets one: the current one when it goes to the same proxy and the app has not closed
 * it; else the current one is given back ({@link #release}: parked for other public
 * connections) and the proxy's most recent idle connection taken ({@link IdleUpstreams}), or a
 * new one opened ({@link VhostTarget#open}). A proxy's connections are opened on its session's
 * event loop and used on their own (the session's for a stream, a work connection's in pool
 * mode), so the public connection moves there first ({@link ChannelMover}). The first time a
 * public connection goes to a proxy it is admitted against that proxy's limits
 * ({@link VhostTarget#admit}).
 *
 * <p>Threading: the connection's event loop (which changes with the moves).
 */
final class Upstreams {
    private final ChannelHandlerContext ctx;
    private final Upstream.Listener listener;
    private final LoopAffinity affinity;
    private final Runnable beforeMove;
    private final VhostSettings.Counters counters;
    /** The proxies this public connection was admitted to; usually one. */
    private final List<VhostTarget> admitted = new ArrayList<>(1);
    private Upstream current;

    /**
     * @param affinity   told where each new connection went (may be null)
     * @param beforeMove runs on the connection's loop before it leaves it (to stop its timer)
     */
    Upstreams(ChannelHandlerContext ctx, Upstream.Listener listener, LoopAffinity affinity, Runnable beforeMove,
              VhostSettings.Counters counters) {
        this.ctx = ctx;
        this.listener = listener;
        this.affinity = affinity;
        this.beforeMove = beforeMove;
        this.counters = counters;
    }

    /** The upstream in use, or null. */
    Upstream current() {
        return current;
    }

    /**
     * Makes {@link #current()} a usable upstream to {@code route}'s proxy, then calls {@code done}
     * with true, or with false when none could be had (the proxy's session is gone or at its
     * limits). Calls it at once when nothing has to wait, else later on the connection's new loop;
     * not at all if the connection could not move (it is closed then).
     *
     * @param fresh a new connection, not an idle one (a retry after an idle one failed)
     */
    void forRoute(Entry<HttpRoute> route, boolean fresh, Consumer<Boolean> done) {
        if (ready(route)) {
            done.accept(true);
            return;
        }
        onLoop(route.target().target().eventLoop(), () -> obtain(route, fresh, done));
    }

    /**
     * Whether {@link #current()} can carry a request to {@code route}'s proxy now, without
     * waiting: it goes to that proxy and the app has not closed it. If it goes elsewhere, or can
     * no longer carry one, it is given back ({@link #release}) and false returned.
     */
    boolean ready(Entry<HttpRoute> route) {
        if (current != null && (current.target() != route.target().target() || !current.usable())) {
            release();
        }
        return current != null;
    }

    /** On the proxy's session loop: admits the connection once, then reuses an idle upstream or opens one. */
    private void obtain(Entry<HttpRoute> route, boolean fresh, Consumer<Boolean> done) {
        VhostTarget target = route.target().target();
        if (!admitted.contains(target)) {
            if (!ctx.channel().isActive() || !target.admit(ctx.channel())) {
                done.accept(false);
                return;
            }
            admitted.add(target);
        }
        Upstream idle = fresh ? null : target.idle().take();
        if (idle != null) {
            toLoopOf(idle.conn, () -> reuse(route, idle, done), idle::park);
            return;
        }
        target.open(ctx.channel(), conn -> {
            if (ctx.executor().inEventLoop()) {
                opened(route, conn, done);
            } else { // a pool work connection's loop: the connection is still on the session's
                ctx.executor().execute(() -> opened(route, conn, done));
            }
        });
    }

    private void reuse(Entry<HttpRoute> route, Upstream idle, Consumer<Boolean> done) {
        if (!ctx.channel().isActive()) {
            idle.park();
            done.accept(false);
            return;
        }
        if (!idle.bind(ctx, route, listener)) { // the app closed it on the way: try the next one
            onLoop(route.target().target().eventLoop(), () -> obtain(route, false, done));
            return;
        }
        counters.upstreamsReused.incrementAndGet();
        current = idle;
        if (affinity != null) {
            affinity.routedTo(idle.conn.eventLoop());
        }
        done.accept(true);
    }

    private void opened(Entry<HttpRoute> route, AppConnection conn, Consumer<Boolean> done) {
        if (conn == null) {
            done.accept(false);
            return;
        }
        toLoopOf(conn, () -> adopt(route, conn, done), conn::reset);
    }

    /**
     * Runs {@code then} with the public connection registered on {@code conn}'s loop. If it is on
     * another loop (a work connection) and the public connection closes during the move there,
     * nobody else would end or give back {@code conn}: {@code orphaned} does, on its loop.
     */
    private void toLoopOf(AppConnection conn, Runnable then, Runnable orphaned) {
        if (conn.eventLoop() == ctx.channel().eventLoop()) {
            then.run();
            return;
        }
        AtomicBoolean claimed = new AtomicBoolean();
        ctx.channel().closeFuture().addListener(f -> {
            if (claimed.compareAndSet(false, true)) {
                conn.eventLoop().execute(orphaned);
            }
        });
        onLoop(conn.eventLoop(), () -> {
            if (claimed.compareAndSet(false, true)) {
                then.run();
            }
        });
    }

    private void adopt(Entry<HttpRoute> route, AppConnection conn, Consumer<Boolean> done) {
        if (!ctx.channel().isActive()) {
            conn.reset();
            done.accept(false);
            return;
        }
        counters.upstreamsOpened.incrementAndGet();
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

    /**
     * Gives the current upstream back after a clean exchange that left it reusable
     * ({@link Exchange#upstreamReusable}): parked for the next request to its proxy from any
     * public connection (or ended, when its pool is full).
     */
    void release() {
        if (current != null) {
            current.park();
            current = null;
        }
    }

    /** Lets go of the current upstream without ending it: it was reset, or taken over by a relay. */
    Upstream forget() {
        Upstream up = current;
        current = null;
        return up;
    }
}
