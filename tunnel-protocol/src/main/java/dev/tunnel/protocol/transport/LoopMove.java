package dev.tunnel.protocol.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.function.Consumer;

/**
 * Moves a connected channel to another event loop of the same transport: deregisters it from
 * its loop and registers it on the other, so that a connection accepted on one loop can join work
 * that runs on another (a logged-in control connection goes to the loop with the fewest
 * sessions) and nothing it does crosses threads afterwards.
 *
 * <h3>What the caller must hold still</h3>
 * The channel's reading is stopped for the move ({@code autoRead} off) and stays off: bytes the
 * socket receives meanwhile wait in the kernel, bytes already read wait in the pipeline's
 * handlers. Nothing may write to the channel from another thread during the move (a task queued
 * to the old loop could run after the channel left it). When {@code then} runs, on the new loop,
 * the channel is registered there; the caller sets up what it needs and turns {@code autoRead}
 * back on.
 *
 * <h3>Transports</h3>
 * epoll and NIO re-register a socket cleanly ({@link #canMove}). io_uring does not: its reads
 * are submitted ahead and complete on the old ring, so an io_uring channel is not moved.
 */
public final class LoopMove {
    private LoopMove() {
    }

    /**
     * A loop of {@code loop}'s group other than {@code loop}, or {@code loop} itself when the group
     * has no other (for work that should not share the loop's thread).
     */
    public static EventLoop another(EventLoop loop) {
        if (loop.parent() != null) {
            for (io.netty.util.concurrent.EventExecutor e : loop.parent()) {
                if (e != loop && e instanceof EventLoop other) {
                    return other;
                }
            }
        }
        return loop;
    }

    /** Whether {@code channel}'s transport can be moved to another loop. */
    public static boolean canMove(Channel channel) {
        return channel instanceof EpollSocketChannel || channel instanceof NioSocketChannel;
    }

    /**
     * Moves {@code channel} ({@link #canMove}, or closed) to {@code home} and runs {@code then} there with
     * null; or, if the move failed, closes the channel and runs {@code then} with the cause, on
     * whichever loop saw the failure. When the channel is on {@code home} already, {@code then}
     * runs at once. Call on the channel's event loop, with {@code autoRead} off.
     *
     * <p>A channel that is closed, or closes before it leaves its loop (its handlers act on events
     * that loop read before the move, and may finish the connection), is not moved, and that is no
     * failure: {@code then} runs with null on {@code home} once the old loop is done with the
     * channel. The channel stays on its old loop, where writes to it fail. Its handlers may not see
     * {@code channelInactive}: a closed channel that unregisters has its pipeline torn down first,
     * so the caller checks {@link Channel#isOpen()} when {@code then} runs.
     */
    public static void moveTo(Channel channel, EventLoop home, Consumer<Throwable> then) {
        if (channel.eventLoop() == home) {
            then.accept(null);
            return;
        }
        if (!channel.isOpen()) {
            landClosed(channel, home, then);
            return;
        }
        if (!canMove(channel)) {
            throw new IllegalArgumentException(channel.getClass().getSimpleName() + " cannot change event loops");
        }
        channel.deregister().addListener(deregistered -> {
            if (!channel.isOpen()) {
                landClosed(channel, home, then);
                return;
            }
            if (!deregistered.isSuccess()) {
                channel.close();
                then.accept(deregistered.cause());
                return;
            }
            home.register(channel).addListener(registered -> {
                if (!registered.isSuccess()) {
                    channel.close();
                    then.accept(registered.cause());
                    return;
                }
                // a write that waited for the socket lost its interest in writability with the old
                // registration: try it again, which asks for it anew if it still cannot finish
                channel.flush();
                then.accept(null);
            });
        });
    }

    /**
     * Runs {@code then} on {@code home} behind the tasks the old loop holds now (a close queues the
     * channel's last events there), so that the caller's state is never touched by both loops at once.
     */
    private static void landClosed(Channel channel, EventLoop home, Consumer<Throwable> then) {
        channel.eventLoop().execute(() -> home.execute(() -> then.accept(null)));
    }
}
