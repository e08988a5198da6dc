package dev.tunnel.server.vhost;

import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one timeout a vhost connection has running at a time: a request head to arrive, or a
 * response to start. Requests come far more often than timeouts fire, so arming and cancelling
 * only move a deadline; the scheduled task is replaced only when the new deadline is sooner
 * than the task, and a task that fires before the deadline schedules itself for the rest.
 *
 * <p>Time is the loop's {@link io.netty.util.concurrent.Ticker}, the clock its scheduled tasks run by.
 *
 * <p>Threading: event loop of the channel only. {@link #stop} before the channel changes loops
 * (the task is scheduled on the loop it was registered on).
 */
final class ConnectionTimer {
    private final Channel channel;
    private Runnable onExpiry;
    private long deadline;
    private ScheduledFuture<?> task;
    private long taskAt;

    ConnectionTimer(Channel channel) {
        this.channel = channel;
    }

    /** Runs {@code onExpiry} in {@code seconds} unless {@link #cancel} or another {@code start} comes first. */
    void start(int seconds, Runnable onExpiry) {
        this.onExpiry = onExpiry;
        long now = channel.eventLoop().ticker().nanoTime();
        deadline = now + TimeUnit.SECONDS.toNanos(seconds);
        if (task != null && taskAt - deadline > 0) {
            task.cancel(false);
            task = null;
        }
        if (task == null) {
            schedule(now, deadline - now);
        }
    }

    /** No timeout runs; the scheduled task (if any) stays and does nothing when it fires. */
    void cancel() {
        onExpiry = null;
    }

    /** No timeout runs and no task stays scheduled: before a loop change, or once closed. */
    void stop() {
        onExpiry = null;
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    private void schedule(long now, long delayNanos) {
        taskAt = now + delayNanos;
        task = channel.eventLoop().schedule(this::fired, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void fired() {
        task = null;
        if (onExpiry == null) {
            return;
        }
        long now = channel.eventLoop().ticker().nanoTime();
        if (deadline - now > 0) {
            schedule(now, deadline - now);
            return;
        }
        Runnable expired = onExpiry;
        onExpiry = null;
        expired.run();
    }
}
