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
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
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
 * <h3>Scheduling</h3>
 * Control, OPEN, RESET and WINDOW_UPDATE frames are written at once; DATA waits in its stream
 * and leaves in the order of the {@link FrameScheduler} while the connection is under its (small)
 * high watermark, so a sparse stream's bytes do not queue behind a download's.
 *
 * <h3>Budgets and memory pressure</h3>
 * The session's streams' receive windows sum to at most {@link MuxSettings#sessionWindow()} (plus
 * each stream's small guaranteed window) and count against the process's {@link MemoryLimit}.
 * When direct memory is nearly used up, the session stops reading its connection and its streams
 * stop reading their sockets ({@link #isPaused()}) until it frees; nothing is closed for it.
 *
 * <h3>Closing</h3>
 * Every end of the session is logged once with its reason ({@link #close(String, boolean)},
 * an error seen in the pipeline, a close from this side, or the peer's), at WARN unless asked for.
 *
 * When the connection closes, every stream is reset with {@link ResetCode#SESSION_CLOSED}.
 */
public final class MuxSession extends ChannelDuplexHandler {
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
    /** A frame is being written; frames written meanwhile wait in {@link #reentrant}. */
    private boolean writing;
    private final ArrayDeque<Frame> reentrant = new ArrayDeque<>();
    private volatile long rttNanos;
    private volatile long minRttNanos;
    private final MemoryLimit memory = MemoryLimit.process();
    private final ReceiveWindow.Budget budget = new SessionBudget();
    /** Sum of the receive windows of this session's streams. */
    private long committed;
    /** Reading stopped because direct memory is nearly used up; a timer checks when to resume. */
    private boolean paused;
    private ScheduledFuture<?> pressureCheck;
    private static final long RTT_PROBE_MILLIS = 1000;
    private ScheduledFuture<?> rttProbe;
    private boolean carriedData;
    private String closeReason;
    private boolean closeAsked;
    private volatile long queueDelayNanos;
    private volatile long maxQueueDelayNanos;
    /** Written only on the session's event loop; volatile so that a dashboard reads it whole. */
    private volatile long windowStalls;

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
        rttProbe = ctx.executor().scheduleAtFixedRate(this::probeRtt, RTT_PROBE_MILLIS, RTT_PROBE_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /**
     * Pings once per {@link #RTT_PROBE_MILLIS} while streams carry data, so the minimum RTT that
     * window tuning uses comes from many samples, not one taken while login was still busy.
     */
    private void probeRtt() {
        if (carriedData && ctx.channel().isActive()) {
            carriedData = false;
            ping();
        }
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
        MuxStream stream = newStream(id);
        writeFrame(new OpenFrame(id, proxyId, source));
        grantStartWindow(stream);
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

    /**
     * Smallest ping round trip seen (any thread), or 0 before the first pong: the path's delay
     * without the queueing the tunnel's own traffic adds, which is what window tuning uses.
     */
    public long minRttNanos() {
        return minRttNanos;
    }

    /** Bytes of receive window this session's streams hold now (event loop only). */
    public long committedWindow() {
        return committed;
    }

    /**
     * Closes the session for {@code reason}, logged once when the connection is gone: at WARN
     * unless {@code asked} (a shutdown, a logout).
     */
    public void close(String reason, boolean asked) {
        if (closeReason == null) {
            closeReason = reason;
            closeAsked = asked;
        }
        ctx.close();
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

    /**
     * Times a stream had bytes to send but no credit from the peer (counted when the stall
     * begins, whatever its length). Read from any thread.
     */
    public long windowStalls() {
        return windowStalls;
    }

    /** A stream ran out of credit with bytes waiting; called on the event loop. */
    void windowStalled() {
        windowStalls++; // single writer: the event loop
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
            carriedData = true;
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
                if (minRttNanos == 0 || sample < minRttNanos) {
                    minRttNanos = Math.max(sample, 1);
                }
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
        MuxStream stream = newStream(id);
        if (acceptor == null) {
            stream.reset(ResetCode.REFUSED);
            return;
        }
        grantStartWindow(stream);
        acceptor.accept(stream, open.proxyId(), open.source());
    }

    private MuxStream newStream(int id) {
        MuxStream stream = new MuxStream(this, id, peerInitialWindow, settings);
        streams.put(id, stream);
        committed += settings.initialWindow();
        memory.forceReserve(settings.initialWindow());
        return stream;
    }

    /** Tops a new stream's guaranteed window up to the start window, as far as the budgets allow. */
    private void grantStartWindow(MuxStream stream) {
        int boost = stream.window().grow(settings.startWindow() - settings.initialWindow(), budget);
        if (boost > 0) {
            writeFrame(new WindowUpdateFrame(stream.id(), boost));
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushSockets();
        if (!paused && MemoryLimit.directMemoryTight()) {
            pause();
        }
        ctx.fireChannelReadComplete();
    }

    /**
     * Memory pressure: stop reading the tunnel connection and every relayed socket of this
     * session, instead of letting an allocation fail and take the session down. Bytes already
     * buffered keep draining; reading resumes when direct memory is below the mark again.
     */
    private void pause() {
        paused = true;
        ctx.channel().config().setAutoRead(false);
        log.warn("{} direct memory nearly used up ({} of {} MiB): reading paused until it frees", ctx.channel(),
                MemoryLimit.usedDirectMemory() >> 20, io.netty.util.internal.PlatformDependent.maxDirectMemory() >> 20);
        pressureCheck = ctx.executor().scheduleWithFixedDelay(() -> {
            if (!MemoryLimit.directMemoryTight()) {
                resume();
            }
        }, 20, 20, TimeUnit.MILLISECONDS);
    }

    private void resume() {
        paused = false;
        pressureCheck.cancel(false);
        pressureCheck = null;
        log.info("{} direct memory available again: reading resumed", ctx.channel());
        ctx.channel().config().setAutoRead(true);
        wakeWaiting();
    }

    /** True while memory pressure keeps this session from reading. */
    public boolean isPaused() {
        return paused;
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        wakeWaiting();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        List<MuxStream> open = new ArrayList<>(streams.values());
        streams.clear();
        awaitingWritable.clear();
        scheduler.clear();
        if (pressureCheck != null) {
            pressureCheck.cancel(false);
        }
        if (rttProbe != null) {
            rttProbe.cancel(false);
        }
        for (MuxStream stream : open) {
            releaseWindow(stream);
            stream.onSessionClosed();
        }
        logClose(open.size());
        flushSockets();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (closeReason == null) {
            closeReason = cause instanceof ProtocolException ? "protocol error: " + cause.getMessage()
                    : cause instanceof java.io.IOException ? "connection error: " + cause.getMessage()
                    : cause.toString();
        }
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (closeReason == null) {
            closeReason = "closed by this side";
            closeAsked = true;
        }
        ctx.close(promise);
    }

    /**
     * One line per session end, on both sides: why, and how many streams it cut. A connection
     * that never completed login is not a session yet: the login stage logs its own outcome.
     */
    private void logClose(int openStreams) {
        String reason = closeReason != null ? closeReason : "the peer closed the connection";
        if (!isStarted()) {
            log.debug("{} closed before login completed: {}", ctx.channel(), reason);
        } else if (closeAsked || (closeReason == null && server)) {
            log.info("{} session closed: {} ({} open streams reset)", ctx.channel(), reason, openStreams);
        } else {
            log.warn("{} session closed: {} ({} open streams reset)", ctx.channel(), reason, openStreams);
        }
    }

    // ---- used by MuxStream ----

    /**
     * Writes {@code frame} behind every frame written before it. A large DATA frame leaves the
     * encoder as two buffers (header, then payload) in two writes, and a write can run other code
     * before it returns (a writability change fires handlers; an {@code EmbeddedChannel} runs due
     * timers such as {@link #probeRtt}): a frame written from there waits in {@link #reentrant}
     * until the outer write is done, so it never lands between a header and its payload.
     */
    void writeFrame(Frame frame) {
        if (!ctx.channel().isActive()) {
            ReferenceCountUtil.release(frame);
            return;
        }
        if (writing) {
            reentrant.add(frame);
            return;
        }
        writing = true;
        try {
            ctx.write(frame, ctx.voidPromise());
            Frame next;
            while ((next = reentrant.poll()) != null) {
                if (ctx.channel().isActive()) {
                    ctx.write(next, ctx.voidPromise());
                } else {
                    ReferenceCountUtil.release(next);
                }
            }
        } finally {
            writing = false;
        }
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

    ReceiveWindow.Budget budget() {
        return budget;
    }

    /** Gives a finished stream's receive window back to the budgets (once per stream). */
    private void releaseWindow(MuxStream stream) {
        if (!stream.windowReleased) {
            stream.windowReleased = true;
            int window = stream.window().window();
            committed -= window;
            memory.release(window);
        }
    }

    /**
     * A stream may grow into half of what the session has not committed yet (so a second
     * draining stream always finds room) and what the process limit leaves. Streams that do not
     * drain never grow, so they cannot take this from streams that do.
     */
    private final class SessionBudget implements ReceiveWindow.Budget {
        @Override
        public int grant(ReceiveWindow window, int wanted) {
            long room = (settings.sessionWindow() - committed) / 2;
            int want = (int) Math.max(0, Math.min(wanted, room));
            int got = memory.tryReserve(want);
            committed += got;
            return got;
        }

        @Override
        public void release(int bytes) {
            committed -= bytes;
            memory.release(bytes);
        }
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
        releaseWindow(stream);
    }

    /** Runs the scheduler, then tells streams that waited for the connection that they may read again. */
    private void wakeWaiting() {
        if (ctx.channel().isWritable()) {
            scheduler.run(System.nanoTime());
        }
        MuxStream stream;
        while (!paused && (stream = awaitingWritable.poll()) != null) {
            stream.awaitingSession = false;
            stream.notifyWritable();
        }
    }

    /** {@code stream} has DATA or a FIN it may send: the scheduler sends it in its turn. */
    void dataReady(MuxStream stream) {
        if (!ctx.channel().isActive()) {
            return;
        }
        carriedData = true;
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
