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
import io.netty.buffer.ByteBuf;
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
 * the same loop ({@link #eventLoop()}), so a stream and its socket never cross threads: every
 * stream is owned by this loop for its whole life.
 *
 * <h3>Flushes</h3>
 * Frames are written without flushing; one flush per event-loop turn is scheduled
 * ({@link #writeFrame}), so many small streams share TLS records and syscalls. Sockets written
 * from frames of one read batch are flushed once at {@code channelReadComplete}.
 *
 * <h3>Opening</h3>
 * A stream this side opens may send at once: the peer's initial window is known from login. When
 * the peer accepts folded OPENs ({@link #foldOpens}), the OPEN waits for the stream's first bytes,
 * at most until the next event-loop turn has read the sockets once more (the public connection's
 * first bytes usually come with the first read after its accept), and leaves with them as one
 * frame ({@link DataFrame#inOpen}); a stream that has nothing to send by then (the app speaks first)
 * gets its OPEN alone. OPENs leave in stream-id order, as the peer requires, and any other frame
 * of a stream goes behind its OPEN. A stream reset before its OPEN left sends nothing.
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
    /** The peer accepts OPEN with the first bytes in it ({@link dev.tunnel.protocol.Capabilities#OPEN_DATA}). */
    private boolean foldOpens;
    /** Streams opened here whose OPEN waits for their first bytes, in id order. */
    private final ArrayDeque<MuxStream> unannounced = new ArrayDeque<>();
    private final Runnable announceTask = this::announceWaiting;
    private boolean announceScheduled;
    /** {@link #announce} is writing; the waiting OPENs' turn came meanwhile (a timer run by a write). */
    private boolean announcing;
    private boolean announceDue;

    private ChannelHandlerContext ctx;
    private FrameScheduler scheduler;
    private Writer writer;
    private final SessionBudget budget;
    private volatile int peerInitialWindow = -1;
    private int nextStreamId;
    private int lastPeerStreamId;
    private boolean flushScheduled;
    private volatile long rttNanos;
    private volatile long minRttNanos;
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
        this.budget = new SessionBudget(settings);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.writer = new Writer(ctx);
        this.scheduler = new FrameScheduler(ctx.channel());
    }

    /**
     * Whether the peer listed {@link dev.tunnel.protocol.Capabilities#OPEN_DATA}: streams opened
     * here then send their OPEN with their first bytes. Off until login says so. Event loop only.
     */
    public void foldOpens(boolean peerAccepts) {
        this.foldOpens = peerAccepts;
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
        OpenFrame open = new OpenFrame(id, proxyId, source);
        int boost = startWindowBoost(stream);
        if (foldOpens) {
            stream.unannouncedOpen = open;
            stream.unannouncedBoost = boost;
            unannounced.add(stream);
            if (!announceScheduled) {
                // due at once, yet run only after the loop's next look at its sockets
                announceScheduled = true;
                ctx.executor().schedule(announceTask, 0, TimeUnit.NANOSECONDS);
            }
        } else {
            writeFrame(open);
            writeBoost(stream, boost);
        }
        return stream;
    }

    /** The OPENs still waiting go out alone: their streams had no bytes by this turn. */
    private void announceWaiting() {
        announceScheduled = false;
        if (announcing) {
            announceDue = true; // the write in progress finishes its OPEN first, then sends these
        } else if (!unannounced.isEmpty()) {
            announce(unannounced.peekLast(), null, false);
        }
    }

    /**
     * Writes the OPENs waiting up to {@code stream}'s, in id order, each with its start-window
     * credit behind it; {@code stream}'s carries {@code first} when not null. Returns whether
     * {@code first} went out (ownership passed).
     */
    private boolean announce(MuxStream stream, ByteBuf first, boolean fin) {
        boolean folded = false;
        boolean outer = !announcing;
        announcing = true;
        try {
            MuxStream next;
            while ((next = unannounced.peek()) != null && next.id() <= stream.id()) {
                unannounced.poll();
                OpenFrame open = next.unannouncedOpen;
                next.unannouncedOpen = null;
                boolean fold = next == stream && first != null;
                writeFrame(fold ? DataFrame.inOpen(open, first, fin) : open);
                folded |= fold;
                writeBoost(next, next.unannouncedBoost);
            }
        } finally {
            if (outer) {
                announcing = false;
            }
        }
        if (outer && announceDue) {
            announceDue = false;
            announceWaiting();
        }
        return folded;
    }

    /**
     * Sends a DATA frame of {@code stream} (ownership of {@code data} passes): folded into its OPEN
     * when that still waits and the bytes are few enough.
     */
    void writeData(MuxStream stream, ByteBuf data, boolean fin) {
        if (stream.unannouncedOpen != null) {
            boolean fold = data.readableBytes() <= DataFrame.MAX_IN_OPEN;
            if (announce(stream, fold ? data : null, fin)) {
                return;
            }
        }
        writeFrame(new DataFrame(stream.id(), data, fin));
    }

    /** Writes a frame of {@code stream} other than DATA, behind its OPEN. */
    void writeFrame(MuxStream stream, Frame frame) {
        if (stream.unannouncedOpen != null) {
            announce(stream, null, false);
        }
        writeFrame(frame);
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

    /** Bytes of receive window this session's streams hold now (any thread). */
    public long committedWindow() {
        return budget.committed();
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

    /** Streams open on this session (any thread). */
    public int streamCount() {
        return budget.streams();
    }

    /**
     * Moving average of how long a stream with bytes to send waited for its turn on this
     * session's connection (nanoseconds; 0 before any wait): what a user of the tunnel feels.
     * Read from any thread (a dashboard).
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
        onStreamFrame(frame);
    }

    private void onStreamFrame(Frame frame) {
        if (frame instanceof OpenFrame open) {
            onOpen(open);
            return;
        }
        MuxStream stream = streams.get(frame.streamId());
        if (stream == null) {
            ReferenceCountUtil.release(frame); // a stream reset here whose peer had frames on the way
            return;
        }
        if (frame instanceof DataFrame data) {
            carriedData = true;
            stream.onData(data);
        } else if (frame instanceof WindowUpdateFrame update) {
            stream.onWindowUpdate(update.increment());
        } else if (frame instanceof ResetFrame reset) {
            stream.onRemoteReset(reset.code());
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
        writeBoost(stream, startWindowBoost(stream));
        acceptor.accept(stream, open.proxyId(), open.source());
    }

    private MuxStream newStream(int id) {
        MuxStream stream = new MuxStream(this, id, peerInitialWindow, settings);
        streams.put(id, stream);
        budget.opened(settings.initialWindow());
        return stream;
    }

    /** Tops a new stream's guaranteed window up to the start window, as far as the budgets allow: the credit to grant. */
    private int startWindowBoost(MuxStream stream) {
        return stream.window().grow(settings.startWindow() - settings.initialWindow(), budget);
    }

    private void writeBoost(MuxStream stream, int boost) {
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
        unannounced.clear();
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

    /** Writes {@code frame} on the connection (see {@link Writer#write}). */
    void writeFrame(Frame frame) {
        writer.write(frame);
    }

    /**
     * Writes frames on the session's connection, without flushing: the session flushes once per
     * event-loop turn.
     */
    private final class Writer {
        private final Channel channel;
        private final ChannelHandlerContext own;
        /** A frame is being written; frames written meanwhile wait in {@link #reentrant}. */
        private boolean writing;
        private final ArrayDeque<Frame> reentrant = new ArrayDeque<>();
        private boolean dirty;

        Writer(ChannelHandlerContext own) {
            this.channel = own.channel();
            this.own = own;
        }

        /**
         * Writes {@code frame} behind every frame written before it. A large DATA
         * frame leaves the encoder as two buffers (header, then payload) in two writes, and a
         * write can run other code before it returns (a writability change fires handlers; an
         * {@code EmbeddedChannel} runs due timers such as {@link #probeRtt}): a frame written from
         * there waits in {@link #reentrant} until the outer write is done, so it never lands
         * between a header and its payload.
         */
        void write(Frame frame) {
            if (!channel.isActive()) {
                ReferenceCountUtil.release(frame);
                return;
            }
            if (writing) {
                reentrant.add(frame);
                return;
            }
            writing = true;
            try {
                out(frame);
                Frame next;
                while ((next = reentrant.poll()) != null) {
                    if (channel.isActive()) {
                        out(next);
                    } else {
                        ReferenceCountUtil.release(next);
                    }
                }
            } finally {
                writing = false;
            }
            dirty = true;
            if (!flushScheduled) {
                flushScheduled = true;
                ctx.executor().execute(flushTask);
            }
        }

        private void out(Frame frame) {
            own.write(frame, own.voidPromise());
        }

        void flush() {
            if (dirty) {
                dirty = false;
                own.flush();
            }
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
            budget.closed(stream.window().window());
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
        if (stream.unannouncedOpen != null) {
            unannounced.remove(stream);
        }
        scheduler.remove(stream);
        releaseWindow(stream);
    }

    /** Runs the scheduler, then tells streams that waited for the connection that they may read again. */
    void wakeWaiting() {
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
        writer.dirty = true; // flushes what the handlers around the session wrote too
        writer.flush();
    }

    void flushSockets() {
        for (int i = 0; i < socketsToFlush.size(); i++) {
            socketsToFlush.get(i).flush();
        }
        socketsToFlush.clear();
    }
}
