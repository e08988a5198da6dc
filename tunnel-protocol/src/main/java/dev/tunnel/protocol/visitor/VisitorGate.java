package dev.tunnel.protocol.visitor;

import dev.tunnel.protocol.ProtocolException;
import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's first handler of a stream a visitor opened: reads the {@link VisitorHello}
 * (at most {@value VisitorHello#MAX_BYTES} bytes), hands it to the {@link Router}, and gives
 * the stream to a {@link StreamSplice} side, with the bytes that followed the hello, which
 * forwards them once the router has connected it to the provider's stream.
 *
 * <p>Threading: the stream's session event loop.
 */
public final class VisitorGate implements StreamHandler {
    private static final Logger log = LoggerFactory.getLogger(VisitorGate.class);

    /** Decides what a visitor stream reaches; called on the visitor stream's loop. */
    @FunctionalInterface
    public interface Router {
        /**
         * Either connects {@code visitor} to a provider stream ({@link StreamSplice#connect}) or
         * refuses it ({@link StreamSplice#refuse}), now or later, from any thread.
         */
        void route(VisitorHello hello, StreamSplice.Side visitor);
    }

    private final MuxStream stream;
    private final EventLoop loop;
    private final Router router;
    private CompositeByteBuf head;
    private boolean done;

    public VisitorGate(MuxStream stream, EventLoop loop, Router router) {
        this.stream = stream;
        this.loop = loop;
        this.router = router;
        stream.handler(this);
    }

    @Override
    public void onData(ByteBuf data) {
        if (done) {
            data.release();
            return;
        }
        if (head == null) {
            head = data.alloc().compositeBuffer();
        }
        head.addComponent(true, data);
        VisitorHello hello;
        int length;
        try {
            length = VisitorHello.encodedLength(head);
            if (length < 0 || head.readableBytes() < length) {
                if (head.readableBytes() >= VisitorHello.MAX_BYTES) {
                    throw new ProtocolException("visitor hello incomplete after " + head.readableBytes() + " bytes");
                }
                return;
            }
            hello = VisitorHello.decode(head);
        } catch (ProtocolException e) {
            log.warn("{} visitor {} refused: {}", stream, "stream", e.getMessage());
            fail(ResetCode.PROTOCOL_ERROR);
            return;
        }
        done = true;
        stream.consumed(length);
        ByteBuf rest = head.isReadable() ? head.readRetainedSlice(head.readableBytes()) : null;
        head.release();
        head = null;
        StreamSplice.Side side = new StreamSplice.Side(stream, loop, rest);
        router.route(hello, side);
    }

    @Override
    public void onFin() {
        if (!done) {
            log.debug("{} visitor stream ended before its hello", stream);
            fail(ResetCode.PROTOCOL_ERROR);
        }
    }

    @Override
    public void onReset(int code) {
        done = true;
        releaseHead();
    }

    @Override
    public void onWritable() {
    }

    private void fail(int code) {
        done = true;
        releaseHead();
        stream.reset(code);
    }

    private void releaseHead() {
        if (head != null) {
            head.release();
            head = null;
        }
    }
}
