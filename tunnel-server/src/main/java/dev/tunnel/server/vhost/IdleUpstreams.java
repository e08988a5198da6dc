package dev.tunnel.server.vhost;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The idle connections to one {@code http} proxy's local app (streams, or work connections in
 * pool mode) that the vhost keeps for the next request from any public connection, as nginx's
 * {@code keepalive} and Go's {@code http.Transport} (frp's vhost) do: a new public connection
 * then costs no new stream and no new connection to the app.
 *
 * <h3>Bounds</h3>
 * At most {@link #MAX_IDLE} connections per proxy wait here, each at most
 * {@link #IDLE_TIMEOUT_SECONDS}; a connection offered beyond the bound, or after the pool was
 * {@linkplain #close closed} (the proxy removed, its client gone), is ended at once. The most
 * recently parked connection is taken first, so the oldest ones age out when fewer are needed.
 *
 * <h3>What is parked</h3>
 * Only connections whose last exchange ended cleanly with both sides keep-alive
 * ({@link Exchange#upstreamReusable}), never one that switched protocols, and none for a proxy
 * that sends the PROXY protocol header (it names the visitor of the connection's first request).
 * A parked connection that the app closes, resets or writes to is dropped ({@link Upstream}).
 *
 * <p>Threading: thread-safe (parks come from the connections' loops, takes from the proxy's
 * session loop). A parked connection is only touched on its own loop; the sweeper that ends
 * expired ones runs on {@code sweepLoop} and hands each to its loop.
 */
public final class IdleUpstreams {
    /** Idle connections kept per proxy. */
    public static final int MAX_IDLE = 64;
    /** How long a connection may stay idle here before it is ended (frp's and nginx's 60 s). */
    public static final int IDLE_TIMEOUT_SECONDS = 60;

    private final EventLoop sweepLoop;
    private final int maxIdle;
    private final long timeoutNanos;
    /** Newest first. */
    private final ArrayDeque<Parked> idle = new ArrayDeque<>();
    private final AtomicLong expired = new AtomicLong();
    private ScheduledFuture<?> sweep;
    private boolean closed;

    private record Parked(Upstream upstream, long since) {
    }

    /** @param sweepLoop the proxy's session loop, where expired connections are looked for */
    public IdleUpstreams(EventLoop sweepLoop) {
        this(sweepLoop, MAX_IDLE, IDLE_TIMEOUT_SECONDS);
    }

    IdleUpstreams(EventLoop sweepLoop, int maxIdle, int timeoutSeconds) {
        this.sweepLoop = sweepLoop;
        this.maxIdle = maxIdle;
        this.timeoutNanos = TimeUnit.SECONDS.toNanos(timeoutSeconds);
    }

    /**
     * Keeps {@code upstream} (on its loop, with no user) for a later request; false when it was
     * not kept (full or closed): the caller ends it.
     */
    boolean offer(Upstream upstream) {
        synchronized (this) {
            if (closed || idle.size() >= maxIdle) {
                return false;
            }
            idle.addFirst(new Parked(upstream, sweepLoop.ticker().nanoTime()));
            if (sweep == null) {
                scheduleSweep(timeoutNanos);
            }
        }
        return true;
    }

    /** The most recently parked connection, now claimed by the caller (to use on its loop); null if none. */
    synchronized Upstream take() {
        Parked p = idle.pollFirst();
        if (p == null) {
            return null;
        }
        return p.upstream;
    }

    /** Drops {@code upstream} if it is parked (the app closed it); true if it was. */
    synchronized boolean remove(Upstream upstream) {
        Iterator<Parked> it = idle.iterator();
        while (it.hasNext()) {
            if (it.next().upstream == upstream) {
                it.remove();
                return true;
            }
        }
        return false;
    }

    /** Ends every parked connection, and every one offered from now on (the proxy is gone). */
    public void close() {
        ArrayDeque<Parked> ending;
        synchronized (this) {
            closed = true;
            ending = new ArrayDeque<>(idle);
            idle.clear();
            if (sweep != null) {
                sweep.cancel(false);
                sweep = null;
            }
        }
        ending.forEach(p -> p.upstream.endIdle());
    }

    /** Connections parked now. */
    public synchronized int size() {
        return idle.size();
    }

    /** Parked connections ended after {@link #IDLE_TIMEOUT_SECONDS} without use, so far. */
    public long expiredCount() {
        return expired.get();
    }

    private void scheduleSweep(long delayNanos) {
        try {
            sweep = sweepLoop.schedule(this::sweep, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopping) {
            sweep = null; // the server is stopping: its connections close with it
        }
    }

    /** Ends the connections idle for longer than the timeout; runs again when the next oldest expires. */
    private void sweep() {
        ArrayDeque<Upstream> ending = new ArrayDeque<>();
        synchronized (this) {
            sweep = null;
            long now = sweepLoop.ticker().nanoTime();
            Parked oldest;
            while ((oldest = idle.peekLast()) != null && now - oldest.since >= timeoutNanos) {
                idle.pollLast();
                ending.add(oldest.upstream);
            }
            if (oldest != null && !closed) {
                scheduleSweep(timeoutNanos - (now - oldest.since));
            }
        }
        expired.addAndGet(ending.size());
        ending.forEach(Upstream::endIdle);
    }
}
