package dev.tunnel.protocol.visitor;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;

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
 * Each {@link Side} runs on its stream's session event loop; bytes, acknowledgements, FIN and
 * reset cross to the other loop with {@code execute} (directly when both loops are one).
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
                provider.run(() -> provider.reset(ResetCode.CANCEL));
                return;
            }
            visitor.other = provider;
            visitor.flushHeld();
        });
    }

    /** Refuses the visitor's stream with {@code code} (any thread). */
    public static void refuse(Side visitor, int code) {
        visitor.run(() -> visitor.reset(code));
    }

    /** One stream of a splice. */
    public static final class Side implements StreamHandler {
        private final MuxStream stream;
        private final EventLoop loop;
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
                other.run(other::finFromOther);
            }
        }

        private void forward(ByteBuf data) {
            int bytes = data.readableBytes();
            Side to = other;
            to.run(() -> to.deliver(data, bytes));
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

        private void ack(int bytes) {
            run(() -> stream.consumed(bytes));
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
                other.run(other::finFromOther);
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
                Side to = other;
                to.run(() -> to.reset(code == ResetCode.SESSION_CLOSED ? ResetCode.CANCEL : code));
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
