package dev.tunnel.protocol.relay;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.transport.HalfClose;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays bytes between one socket (a public connection, or a connection to the local app) and
 * one {@link MuxStream}: the last handler of the socket's pipeline and the stream's handler.
 *
 * <h3>Backpressure</h3>
 * The socket runs with {@code AUTO_READ} off. {@link #resumeReading()} reads once more only
 * while the stream is writable (credit left, session connection under its watermark);
 * otherwise reading stops until {@link #onWritable()}. In the other direction, bytes from the
 * stream are written to the socket and their credit goes back only when the write completes,
 * so a local app or public reader that stops reading stops its sender, and no one else.
 *
 * <p>Reads are no larger than the stream's credit ({@link CreditBoundReads}), so a stream that
 * waits for credit holds at most a couple of KiB it read ahead, not a 256 KiB read; bytes for a
 * socket that is not keeping up are compacted out of the tunnel's read buffers
 * ({@link #compact}), so a slow reader pins only what it is owed.
 *
 * <h3>Early data</h3>
 * On the client the stream exists before the local connection does (the server sends the
 * first bytes without waiting). Until {@link #channelActive} the bytes wait here; they are
 * bounded by the stream's initial window, since no credit is returned for them.
 *
 * <h3>Closing</h3>
 * EOF on the socket becomes FIN on the stream; FIN from the stream shuts the socket's output
 * after everything before it was written. The socket is closed when both directions are done;
 * when its EOF came first, FIN from the stream closes it at once (the close sends the FIN).
 * A socket error or close before that resets the stream; a reset closes the socket with RST.
 *
 * <p>Once the socket's output is shut, its EOF closes it ({@code ALLOW_HALF_CLOSURE} goes off):
 * with half-closure on, Netty would shut the input too, which fails on a connection the kernel
 * has finished (both FINs seen) and builds a {@code NotYetConnectedException} with its stack
 * trace each time, 2.6 % of the server's CPU under a load of short connections. So a close
 * after our FIN with no error before it ({@link #exceptionCaught} sees every read error first)
 * is that EOF, and becomes FIN on the stream. That FIN is written from {@code channelInactive},
 * after the socket's close future completed: a graceful stop that waits on close futures closes
 * the tunnel connection with {@link dev.tunnel.protocol.transport.LastWrites}, not directly.
 *
 * <p>Threading: the socket must be registered on the session's event loop.
 */
public final class StreamRelay extends ChannelInboundHandlerAdapter implements StreamHandler {
    private static final Logger log = LoggerFactory.getLogger(StreamRelay.class);

    /** Buffers this small are not worth copying (FrameDecoder already copied those under 4 KiB). */
    private static final int COMPACT_BELOW_PENDING = 4096;

    private final MuxStream stream;
    private final RelayCounter counter;
    private Channel channel;
    private ArrayDeque<ByteBuf> early;
    private boolean earlyFin;
    private boolean inputDone;
    private boolean outputDone;
    private boolean aborted;
    private boolean failed;

    public StreamRelay(MuxStream stream) {
        this(stream, RelayCounter.NONE);
    }

    /** @param counter counts the bytes read from and written to the socket (the proxy's traffic) */
    public StreamRelay(MuxStream stream, RelayCounter counter) {
        this.stream = stream;
        this.counter = counter;
        stream.handler(this);
    }

    public MuxStream stream() {
        return stream;
    }

    /** The local connection could not be made: abort the stream and drop early data. */
    public void connectFailed() {
        aborted = true;
        releaseEarly();
        stream.reset(ResetCode.CONNECT_FAILED);
    }

    // ---- socket side ----

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        channel.config().setRecvByteBufAllocator(
                new CreditBoundReads(channel.config().getRecvByteBufAllocator(), stream::sendCredit));
        if (aborted) {
            abortSocket();
            return;
        }
        if (early != null) {
            ByteBuf data;
            while ((data = early.poll()) != null) {
                writeToSocket(data);
            }
            early = null;
        }
        if (earlyFin) {
            shutdownSocketOutput();
        } else {
            channel.flush();
        }
        ctx.fireChannelActive();
        resumeReading();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf data) {
            counter.read(data.readableBytes());
            stream.write(data);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        resumeReading();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ChannelInputShutdownEvent.INSTANCE) {
            inputDone = true;
            stream.shutdownOutput();
            closeIfDone();
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        socketClosed();
        ctx.fireChannelInactive();
    }

    /** The socket is closed: finish the stream as its end allows. Once, or again with no effect. */
    private void socketClosed() {
        if (outputDone && !inputDone && !aborted && !failed) {
            inputDone = true; // the EOF that closed it (see Closing)
            stream.shutdownOutput();
        }
        if (!aborted && !(inputDone && outputDone)) {
            aborted = true;
            stream.reset(ResetCode.CANCEL);
        }
        releaseEarly();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failed = true;
        log.debug("{} {}: {}", ctx.channel(), stream, cause.toString());
        ctx.close();
    }

    private void resumeReading() {
        if (channel != null && !inputDone && !aborted && stream.isWritable()) {
            channel.read();
        }
    }

    // ---- stream side ----

    @Override
    public void onData(ByteBuf data) {
        if (channel == null) {
            if (early == null) {
                early = new ArrayDeque<>(4);
            }
            early.add(data);
            return;
        }
        writeToSocket(data);
        stream.flushLater(channel);
    }

    @Override
    public void onFin() {
        if (channel == null) {
            earlyFin = true;
        } else {
            shutdownSocketOutput();
        }
    }

    @Override
    public void onReset(int code) {
        aborted = true;
        releaseEarly();
        if (channel != null) {
            log.debug("{} {} reset by peer: {}", channel, stream, ResetCode.name(code));
            abortSocket();
        }
    }

    @Override
    public void onWritable() {
        resumeReading();
    }

    private void writeToSocket(ByteBuf data) {
        int bytes = data.readableBytes();
        counter.written(bytes);
        if (bytes > COMPACT_BELOW_PENDING && hasPendingWrites()) {
            data = compact(data);
        }
        channel.write(data).addListener(future -> {
            if (future.isSuccess()) {
                stream.consumed(bytes);
            }
        });
    }

    /**
     * The socket did not take what it was last given: this buffer may wait a long time (a slow
     * reader). It is a slice of a tunnel read of up to 256 KiB, which it would pin whole, so it
     * is copied into a buffer of its own size first.
     */
    private ByteBuf compact(ByteBuf data) {
        ByteBuf copy;
        try {
            copy = channel.alloc().directBuffer(data.readableBytes());
        } catch (OutOfMemoryError e) {
            return data; // no memory for the copy: keep the slice
        }
        copy.writeBytes(data);
        data.release();
        return copy;
    }

    private boolean hasPendingWrites() {
        io.netty.channel.ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out != null && out.totalPendingWriteBytes() > 0;
    }

    private void shutdownSocketOutput() {
        if (inputDone) {
            closeAfterWrites();
            return;
        }
        HalfClose.shutdownOutputAfterWrites(channel, () -> {
            outputDone = true;
            if (!inputDone) {
                channel.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, false);
            }
            closeIfDone();
        });
    }

    /**
     * Both directions are done once the writes are out: the close sends the FIN, so the socket
     * is not shut first (one syscall per connection fewer). Its EOF was read, so nothing unread
     * is left for the close to answer with a reset.
     */
    private void closeAfterWrites() {
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) written -> {
            if (written.isSuccess()) {
                outputDone = true;
                channel.close();
            }
        });
    }

    private void closeIfDone() {
        if (inputDone && outputDone) {
            channel.close();
        }
    }

    private void abortSocket() {
        if (channel.isActive()) {
            channel.config().setOption(ChannelOption.SO_LINGER, 0);
        }
        channel.close();
    }

    private void releaseEarly() {
        if (early != null) {
            ByteBuf data;
            while ((data = early.poll()) != null) {
                data.release();
            }
            early = null;
        }
    }
}
