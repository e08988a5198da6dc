package dev.tunnel.protocol.visitor;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.internal.PlatformDependent;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Joins two streams of two sessions on the server, a visitor's and its provider's, with no
 * socket in between: what one stream delivers is written to the other.
 *
 * <h3>Flow control</h3>
 * Credit goes back to the sending stream only once the receiving stream has taken the bytes
 * (written them within its own credit); bytes it holds beyond its credit are acknowledged from
 * its {@link StreamHandler#onWritable()}. So a slow provider app slows the visitor's sender and
 * the server holds, per direction, at most the sending stream's window.
 *
 * <h3>Threading</h3>
 * Each {@link Side} runs on its stream's session event loop. Bytes, FIN and reset cross to the
 * other loop through that side's inbox, in order, drained by one task however many arrived
 * meanwhile; acknowledgements add up in a counter handed over by one task the same way. So a busy
 * splice costs a wake-up of the other loop per batch, not per chunk. When both sessions share
 * a loop, everything is a direct call.
 *
 * <h3>Reference counting</h3>
 * Buffers pass from one side to the other and are released by the stream they are written to,
 * or here when that side has ended.
 */
public final class StreamSplice {
    private StreamSplice() {
    }

    /** Connects two sides; call on {@code provider}'s loop, before its stream can deliver anything. */
    public static void connect(Side visitor, Side provider) {
        provider.other = visitor;
        visitor.run(() -> {
            if (visitor.ended) {
                provider.post(new Reset(ResetCode.CANCEL));
                return;
            }
            visitor.other = provider;
            visitor.flushHeld();
        });
    }

    /** Refuses the visitor's stream with {@code code} (any thread). */
    public static void refuse(Side visitor, int code) {
        visitor.post(new Reset(code));
    }

    private static final Object FIN = new Object();

    private record Reset(int code) {
    }

    /** One stream of a splice. */
    public static final class Side implements StreamHandler {
        private final MuxStream stream;
        private final EventLoop loop;
        /** What the other side sent to this one (bytes, FIN, reset), when the two run on different loops. */
        private final Queue<Object> inbox = PlatformDependent.newMpscQueue();
        private final AtomicBoolean drainScheduled = new AtomicBoolean();
        private final Runnable drainTask = this::drainInbox;
        /** Bytes this side's stream delivered that the other stream has taken: credit to return. */
        private final AtomicInteger acks = new AtomicInteger();
        private final Runnable ackTask = this::returnCredit;
        private Side other;
        private ArrayDeque<ByteBuf> held;
        private boolean heldFin;
        private int pendingAck;
        private boolean ended;

        /** @param first bytes already read from the stream, forwarded first (may be null) */
        public Side(MuxStream stream, EventLoop loop, ByteBuf first) {
            this.stream = stream;
            this.loop = loop;
            stream.handler(this);
            if (first != null) {
                held = new ArrayDeque<>(2);
                held.add(first);
            }
        }

        public MuxStream stream() {
            return stream;
        }

        public EventLoop loop() {
            return loop;
        }

        private void run(Runnable task) {
            if (loop.inEventLoop()) {
                task.run();
            } else {
                loop.execute(task);
            }
        }

        private void flushHeld() {
            if (held != null) {
                ByteBuf data;
                while ((data = held.poll()) != null) {
                    forward(data);
                }
                held = null;
            }
            if (heldFin) {
                other.post(FIN);
            }
        }

        private void forward(ByteBuf data) {
            other.post(data);
        }

        /** Hands {@code message} (a ByteBuf, {@link #FIN} or a {@link Reset}) to this side, on its loop, in order. */
        private void post(Object message) {
            if (loop.inEventLoop() && inbox.isEmpty()) {
                handle(message);
                return;
            }
            inbox.add(message);
            if (drainScheduled.compareAndSet(false, true)) {
                loop.execute(drainTask);
            }
        }

        private void drainInbox() {
            drainScheduled.set(false);
            Object message;
            while ((message = inbox.poll()) != null) {
                handle(message);
            }
        }

        private void handle(Object message) {
            if (message instanceof ByteBuf data) {
                deliver(data, data.readableBytes());
            } else if (message == FIN) {
                finFromOther();
            } else if (message instanceof Reset r) {
                reset(r.code());
            }
        }

        @Override
        public void onData(ByteBuf data) {
            if (ended) {
                data.release();
                return;
            }
            if (other == null) {
                if (held == null) {
                    held = new ArrayDeque<>(2);
                }
                held.add(data); // bounded by the stream's window: no credit goes back until forwarded
                return;
            }
            forward(data);
        }

        /** Bytes from the other side, on this side's loop. */
        private void deliver(ByteBuf data, int bytes) {
            if (ended) {
                data.release();
                other.ack(bytes);
                return;
            }
            if (stream.write(data)) {
                other.ack(bytes);
            } else {
                pendingAck += bytes;
            }
        }

        private void returnCredit() {
            stream.consumed(acks.getAndSet(0));
        }

        private void ack(int bytes) {
            if (loop.inEventLoop()) {
                stream.consumed(bytes);
            } else if (acks.getAndAdd(bytes) == 0) {
                loop.execute(ackTask);
            }
        }

        @Override
        public void onWritable() {
            if (pendingAck > 0 && other != null) {
                int bytes = pendingAck;
                pendingAck = 0;
                other.ack(bytes);
            }
        }

        @Override
        public void onFin() {
            if (other == null) {
                heldFin = true;
            } else {
                other.post(FIN);
            }
        }

        private void finFromOther() {
            stream.shutdownOutput();
        }

        @Override
        public void onReset(int code) {
            ended = true;
            releaseHeld();
            if (other != null) {
                other.post(new Reset(code == ResetCode.SESSION_CLOSED ? ResetCode.CANCEL : code));
            }
        }

        private void reset(int code) {
            if (!ended) {
                ended = true;
                releaseHeld();
                stream.reset(code);
            }
        }

        private void releaseHeld() {
            if (held != null) {
                held.forEach(ByteBuf::release);
                held = null;
            }
        }
    }
}
