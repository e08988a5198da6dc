package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.Pong;
import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.OpenFrame;
import dev.tunnel.protocol.ProtocolException;
import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.ResetFrame;
import dev.tunnel.protocol.WindowUpdateFrame;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries many {@link MuxStream}s over one connection (TLS or plain TCP) and answers pings.
 * Sits behind the frame codec; control frames other than PING/PONG go on to the next handler.
 *
 * <h3>Threading</h3>
 * Runs on the connection's event loop. Sockets relayed through its streams are registered on
 * the same loop ({@link #eventLoop()}), so a stream and its socket never cross threads.
 *
 * <h3>Flushes</h3>
 * Frames are written without flushing; one flush per event-loop turn is scheduled
 * ({@link #writeFrame}), so many small streams share TLS records and syscalls. Sockets written
 * from frames of one read batch are flushed once at {@code channelReadComplete}.
 *
 * <h3>Backpressure</h3>
 * Above the connection's high watermark every stream reports not writable; streams that asked
 * are told when the connection drains ({@link #awaitWritable}).
 *
 * <h3>Closing</h3>
 * When the connection closes, every stream is reset with {@link ResetCode#SESSION_CLOSED}.
 */
public final class MuxSession extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(MuxSession.class);

    private final boolean server;
    private final MuxSettings settings;
    private final StreamAcceptor acceptor;
    private final IntObjectMap<MuxStream> streams = new IntObjectHashMap<>();
    private final ArrayDeque<MuxStream> awaitingWritable = new ArrayDeque<>();
    private final List<Channel> socketsToFlush = new ArrayList<>();
    private final Runnable flushTask = this::flushNow;

    private ChannelHandlerContext ctx;
    private FrameScheduler scheduler;
    private int peerInitialWindow = -1;
    private int nextStreamId;
    private int lastPeerStreamId;
    private boolean flushScheduled;
    private volatile long rttNanos;
    private volatile long queueDelayNanos;
    private volatile long maxQueueDelayNanos;

    /**
     * @param server   true on the tunnel server (opens odd stream ids), false on the client (even)
     * @param acceptor accepts streams the peer opens, or null to refuse them
     */
    public MuxSession(boolean server, MuxSettings settings, StreamAcceptor acceptor) {
        this.server = server;
        this.settings = settings;
        this.acceptor = acceptor;
        this.nextStreamId = server ? 1 : 2;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.scheduler = new FrameScheduler(ctx.channel());
    }

    /** Starts carrying streams once login told us the peer's initial window. */
    public void start(int peerInitialWindow) {
        if (peerInitialWindow < 1024) {
            throw new ProtocolException("peer announced an initial window of " + peerInitialWindow
                    + " bytes (expected at least 1024)");
        }
        this.peerInitialWindow = peerInitialWindow;
        TunnelSocket.keepQueuesShort(ctx.channel());
    }

    public boolean isStarted() {
        return peerInitialWindow > 0;
    }

    public MuxSettings settings() {
        return settings;
    }

    /** Opens a stream for a public connection; the caller sets its handler and may write at once. */
    public MuxStream openStream(int proxyId, String source) {
        assert ctx.executor().inEventLoop();
        if (!isStarted()) {
            throw new IllegalStateException("session not started");
        }
        if (nextStreamId < 0) {
            throw new IllegalStateException("stream ids exhausted on this session; reconnect");
        }
        int id = nextStreamId;
        nextStreamId += 2;
        MuxStream stream = new MuxStream(this, id, peerInitialWindow, settings);
        streams.put(id, stream);
        writeFrame(new OpenFrame(id, proxyId, source));
        return stream;
    }

    /** Sends a ping; the pong updates {@link #rttNanos()}. */
    public void ping() {
        writeFrame(new ControlFrame(new Ping(System.nanoTime())));
    }

    /** Smoothed round-trip time of the last pings (any thread), or 0 before the first pong. */
    public long rttNanos() {
        return rttNanos;
    }

    public int streamCount() {
        return streams.size();
    }

    /**
     * Moving average of how long a stream with bytes to send waited for its turn on the
     * connection (nanoseconds; 0 before any wait). Read from any thread (a dashboard).
     */
    public long queueDelayNanos() {
        return queueDelayNanos;
    }

    /** Largest such wait since the previous call (nanoseconds), for a dashboard polling it. */
    public long takeMaxQueueDelayNanos() {
        long max = maxQueueDelayNanos;
        maxQueueDelayNanos = 0;
        return max;
    }

    public Channel channel() {
        return ctx.channel();
    }

    /** The loop that runs this session; relayed sockets must be registered on it. */
    public io.netty.channel.EventLoop eventLoop() {
        return ctx.channel().eventLoop();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ControlFrame control) {
            onControl(control);
            return;
        }
        if (!(msg instanceof Frame frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (!isStarted()) {
            ReferenceCountUtil.release(msg);
            throw new ProtocolException("stream frame before login completed");
        }
        if (frame instanceof DataFrame data) {
            MuxStream stream = streams.get(data.streamId());
            if (stream == null) {
                data.release();
                log.trace("{} DATA for closed stream {} dropped", ctx.channel(), data.streamId());
            } else {
                stream.onData(data);
            }
        } else if (frame instanceof WindowUpdateFrame update) {
            MuxStream stream = streams.get(update.streamId());
            if (stream != null) {
                stream.onWindowUpdate(update.increment());
            }
        } else if (frame instanceof ResetFrame reset) {
            MuxStream stream = streams.get(reset.streamId());
            if (stream != null) {
                stream.onRemoteReset(reset.code());
            }
        } else if (frame instanceof OpenFrame open) {
            onOpen(open);
        }
    }

    private void onControl(ControlFrame control) {
        if (control.message() instanceof Ping ping) {
            writeFrame(new ControlFrame(new Pong(ping.payload())));
        } else if (control.message() instanceof Pong pong) {
            long sample = System.nanoTime() - pong.payload();
            if (sample >= 0 && sample < TimeUnit.MINUTES.toNanos(2)) {
                long rtt = rttNanos == 0 ? sample : (7 * rttNanos + sample) / 8;
                rttNanos = rtt;
                if (log.isDebugEnabled()) {
                    log.debug("{} ping RTT {} us (smoothed {} us)", ctx.channel(), sample / 1000, rtt / 1000);
                }
            }
            ctx.fireChannelRead(control);
        } else {
            ctx.fireChannelRead(control);
        }
    }

    private void onOpen(OpenFrame open) {
        int id = open.streamId();
        boolean peerParity = server ? id % 2 == 0 : id % 2 == 1;
        if (!peerParity || Integer.compareUnsigned(id, lastPeerStreamId) <= 0) {
            throw new ProtocolException("peer opened stream " + id + " out of order (last " + lastPeerStreamId + ")");
        }
        lastPeerStreamId = id;
        MuxStream stream = new MuxStream(this, id, peerInitialWindow, settings);
        streams.put(id, stream);
        if (acceptor == null) {
            stream.reset(ResetCode.REFUSED);
            return;
        }
        acceptor.accept(stream, open.proxyId(), open.source());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushSockets();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            scheduler.run(System.nanoTime());
        }
        MuxStream stream;
        while (ctx.channel().isWritable() && (stream = awaitingWritable.poll()) != null) {
            stream.awaitingSession = false;
            stream.notifyWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        List<MuxStream> open = new ArrayList<>(streams.values());
        streams.clear();
        awaitingWritable.clear();
        scheduler.clear();
        for (MuxStream stream : open) {
            stream.onSessionClosed();
        }
        flushSockets();
        ctx.fireChannelInactive();
    }

    // ---- used by MuxStream ----

    void writeFrame(Frame frame) {
        if (!ctx.channel().isActive()) {
            ReferenceCountUtil.release(frame);
            return;
        }
        ctx.write(frame, ctx.voidPromise());
        if (!flushScheduled) {
            flushScheduled = true;
            ctx.executor().execute(flushTask);
        }
    }

    void flushLater(Channel socket) {
        int size = socketsToFlush.size();
        if (size == 0 || socketsToFlush.get(size - 1) != socket) {
            socketsToFlush.add(socket);
        }
    }

    boolean isChannelWritable() {
        return ctx.channel().isWritable();
    }

    void awaitWritable(MuxStream stream) {
        if (!stream.awaitingSession) {
            stream.awaitingSession = true;
            awaitingWritable.add(stream);
        }
    }

    void remove(MuxStream stream) {
        streams.remove(stream.id());
        scheduler.remove(stream);
    }

    /** {@code stream} has DATA or a FIN it may send: the scheduler sends it in its turn. */
    void dataReady(MuxStream stream) {
        if (!ctx.channel().isActive()) {
            return;
        }
        scheduler.ready(stream, System.nanoTime());
    }

    void logStreamError(MuxStream stream, String reason) {
        log.warn("{} {} reset: {}", ctx.channel(), stream, reason);
    }

    private void flushNow() {
        flushScheduled = false;
        queueDelayNanos = scheduler.queueDelayNanos();
        maxQueueDelayNanos = Math.max(maxQueueDelayNanos, scheduler.takeMaxQueueDelayNanos());
        ctx.flush();
    }

    private void flushSockets() {
        for (int i = 0; i < socketsToFlush.size(); i++) {
            socketsToFlush.get(i).flush();
        }
        socketsToFlush.clear();
    }
}
