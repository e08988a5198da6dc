package dev.tunnel.protocol.relay;

import dev.tunnel.protocol.TunnelPipeline;
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
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One end of a raw byte pipe between two sockets: a public connection and its work connection
 * on the server, a work connection and the local-app connection on the client (pool mode).
 * Each socket gets one {@code PipeRelay} as its last handler ({@link #attach}); {@link #join}
 * pairs them. Whatever one socket reads is written to the other, as retained buffers, never
 * copied.
 *
 * <h3>Threading</h3>
 * Each end's state is touched only on its own channel's event loop. The two channels may live
 * on different loops (on the server, a work connection is accepted on any worker loop while
 * the public connection runs on the client session's loop; on the client both share the
 * control connection's loop). Across ends only thread-safe {@code Channel} operations are used
 * (write, flush, read, close, {@code isWritable}); anything that changes the other end's state
 * is posted to that end's loop ({@link #onPeer}).
 *
 * <h3>Backpressure</h3>
 * Both sockets run with {@code AUTO_READ} off. An end reads once more ({@link #resumeReading})
 * only while the other socket is writable; when the other socket goes over its high watermark
 * reading stops, and its {@code channelWritabilityChanged} resumes it. Bytes buffered per
 * direction are bounded by the watermark plus one read batch.
 *
 * <h3>Early bytes</h3>
 * Until {@link #join}, what an end reads (bytes a decoder handed on when it was removed, EOF)
 * is held and forwarded first when the pipe starts.
 *
 * <h3>Closing</h3>
 * Half-close travels: EOF on one socket shuts down the other's output once everything before
 * it was written ({@code ALLOW_HALF_CLOSURE} must be on). A socket closes when both its
 * directions are done. A socket that closes before that makes the other flush what it holds and
 * close (forced when its reader took nothing for {@value #CLOSE_GRACE_MILLIS} ms); a socket error
 * resets both sockets at once (RST), so a failure never looks like the end of the stream.
 */
public final class PipeRelay extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(PipeRelay.class);
    static final long CLOSE_GRACE_MILLIS = 5_000;

    private final Channel channel;
    private volatile PipeRelay peer;
    /** Set before {@link #join}; read by the peer's loop when it writes here. */
    private volatile RelayCounter counter = RelayCounter.NONE;
    private ArrayDeque<ByteBuf> early;
    private boolean started;
    private boolean inputDone;
    private boolean outputDone;
    private boolean inactive;
    private boolean failed;
    private boolean closing;

    private PipeRelay(Channel channel) {
        this.channel = channel;
    }

    /** Adds an unjoined end as the last handler of {@code channel}; it holds what it reads until {@link #join}. */
    public static PipeRelay attach(Channel channel) {
        PipeRelay relay = new PipeRelay(channel);
        channel.pipeline().addLast(TunnelPipeline.RELAY, relay);
        return relay;
    }

    /** Replaces handler {@code name} (call from the channel's loop, e.g. inside that handler) with an unjoined end. */
    public static PipeRelay replace(Channel channel, String name) {
        PipeRelay relay = new PipeRelay(channel);
        channel.pipeline().replace(name, TunnelPipeline.RELAY, relay);
        return relay;
    }

    /** Starts the pipe between two ends; may be called from any thread, once. */
    public static void join(PipeRelay a, PipeRelay b) {
        a.peer = b;
        b.peer = a;
        a.onOwnLoop(a::start);
        b.onOwnLoop(b::start);
    }

    public Channel channel() {
        return channel;
    }

    /** Counts the bytes read from and written to this end's socket (the proxy's traffic); call before {@link #join}. */
    public PipeRelay counted(RelayCounter counter) {
        this.counter = counter;
        return this;
    }

    private void start() {
        started = true;
        PipeRelay p = peer;
        if (early != null) {
            ByteBuf data;
            while ((data = early.poll()) != null) {
                p.counter.written(data.readableBytes());
                p.channel.write(data);
            }
            early = null;
        }
        p.channel.flush();
        if (inputDone) {
            p.onPeer(p::shutdownOutput);
        }
        if (inactive && !(inputDone && outputDone)) {
            p.onPeer(failed ? p::abort : p::flushAndClose);
            return;
        }
        resumeReading();
    }

    // ---- own socket ----

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf data)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        counter.read(data.readableBytes());
        if (!started) {
            if (early == null) {
                early = new ArrayDeque<>(4);
            }
            early.add(data);
            return;
        }
        PipeRelay p = peer;
        p.counter.written(data.readableBytes());
        p.channel.write(data, p.channel.voidPromise());
    }

    /**
     * Flushes what this read batch wrote to the peer, while this side's input goes on. After EOF
     * the peer's half-close has flushed everything (and may have shut its output): a flush then
     * would make a TLS peer's {@code SslHandler} write an empty record, which io_uring, unlike
     * epoll, hands to the kernel; on a shut output that write fails (EPIPE) and the connection
     * closes with the far side's bytes still in flight.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (started && !inputDone) {
            peer.channel.flush();
            resumeReading();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        PipeRelay p = peer;
        if (channel.isWritable() && p != null) {
            p.onPeer(p::resumeReading);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ChannelInputShutdownEvent.INSTANCE && !inputDone) {
            inputDone = true;
            log.trace("{} pipe: input done (started {})", channel, started);
            if (started) {
                PipeRelay p = peer;
                p.onPeer(p::shutdownOutput);
            }
            closeIfDone();
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        inactive = true;
        log.trace("{} pipe: inactive (input done {}, output done {}, failed {})", channel, inputDone, outputDone, failed);
        if (started && !(inputDone && outputDone)) {
            PipeRelay p = peer;
            p.onPeer(failed ? p::abort : p::flushAndClose);
        }
        if (!started && early != null) {
            // never joined: nobody will forward these
            ByteBuf data;
            while ((data = early.poll()) != null) {
                data.release();
            }
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("{} pipe closed: {}{}", channel, cause.toString(),
                cause.getCause() == null ? "" : " caused by " + cause.getCause());
        failed = true;
        abort(); // RST, so the far end learns this was a failure and not the end of the stream
    }

    /** Reads once more if the pipe is running, this side is open and the other can take writes. */
    private void resumeReading() {
        PipeRelay p = peer;
        if (started && !inputDone && !inactive && p != null && p.channel.isWritable()) {
            channel.read();
        }
    }

    // ---- asked by the other end, on this end's loop ----

    private void shutdownOutput() {
        HalfClose.shutdownOutputAfterWrites(channel, () -> {
            log.trace("{} pipe: output done", channel);
            outputDone = true;
            closeIfDone();
        });
    }

    private void flushAndClose() {
        if (closing || !channel.isActive()) {
            return;
        }
        closing = true;
        log.trace("{} pipe: the other side closed early; flushing and closing", channel);
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        abortIfStuck(pendingBytes());
    }

    /** Aborts the close-in-progress if the reader took nothing during the grace period. */
    private void abortIfStuck(long pendingBefore) {
        channel.eventLoop().schedule(() -> {
            if (!channel.isActive()) {
                return;
            }
            long pending = pendingBytes();
            if (pending < pendingBefore) {
                abortIfStuck(pending);
                return;
            }
            log.debug("{} pipe: peer closed and this side took nothing for {} ms: closing", channel,
                    CLOSE_GRACE_MILLIS);
            abort();
        }, CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    }

    private long pendingBytes() {
        io.netty.channel.ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }

    private void abort() {
        if (channel.isActive()) {
            channel.config().setOption(ChannelOption.SO_LINGER, 0);
        }
        channel.close();
    }

    /**
     * Both directions are done: the socket closes. Its FIN went out with the half-close, so
     * nothing may follow it; closing through the pipeline would make a TLS work connection's
     * {@code SslHandler} write a close_notify behind the FIN, which fails (EPIPE) and builds an
     * exception on every connection. The socket is closed directly instead.
     */
    private void closeIfDone() {
        if (inputDone && outputDone) {
            channel.unsafe().close(channel.voidPromise());
        }
    }

    private void onPeer(Runnable task) {
        onOwnLoop(task);
    }

    private void onOwnLoop(Runnable task) {
        if (channel.eventLoop().inEventLoop()) {
            task.run();
        } else {
            channel.eventLoop().execute(task);
        }
    }
}
