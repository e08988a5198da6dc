package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.Pong;
import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.LaneFrame;
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
 * the same loop ({@link #eventLoop()}), so a stream and its socket never cross threads. A
 * session with the express lane has two of these: the session's own on the express lane, and
 * its <em>bulk owner</em> ({@link #newBulkOwner}) on the bulk lane, on another loop; a stream
 * that moves to the bulk lane moves to the bulk owner with its socket (see Lanes). What the two
 * share (the window budget, the stream count, the streams between them) is a thread-safe
 * {@link SessionShare}.
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
 * <h3>Lanes</h3>
 * With the express lane ({@link #attachBulkLane}) the session has a second connection, the
 * bulk lane, run by the bulk owner, a second {@code MuxSession} on another event loop. Control,
 * OPEN and PING frames, and every frame of a stream that has not moved, go on the express lane.
 * A stream that {@linkplain MuxStream#turnedBulk turned bulk} here asks to move (a
 * {@link LaneFrame} request); a side that reads a request, or the peer's marker, writes its own
 * marker behind its last frame of the stream on the express lane and hands the stream, with its
 * socket ({@link StreamHandler#moveTo}), to the bulk owner ({@link StreamMoves}): the stream's frames, both ways, then
 * go on the bulk lane and are handled on the bulk owner's loop, so that a download's reads, TLS
 * and writes do not delay the sparse streams left on this loop, and, in the network, its standing
 * queue (one per TCP connection in fq_codel-like routers) is not in front of their bytes. A
 * stream does not move back. Frames of a stream between owners wait in its {@link Handoff};
 * what arrives on the two lanes is put back in the sender's order ({@link LaneOrder}), and a
 * stream whose frames waited {@link StreamMoves#DEFAULT_MARKER_TIMEOUT_MILLIS} for a marker is
 * reset. A stream whose handler cannot move (see {@link StreamHandler#canMove}) stays here, even
 * when the peer moved its side. Both lanes carry pings; losing either ends the session (a bulk
 * lane the peer closed cleanly, once the express lane closed too, or a few seconds later: see
 * {@link #bulkLaneClosed}).
 *
 * <h3>Budgets and memory pressure</h3>
 * The session's streams' receive windows sum to at most {@link MuxSettings#sessionWindow()} (plus
 * each stream's small guaranteed window) and count against the process's {@link MemoryLimit}.
 * Windows are sized by {@link WindowControl} from the path delay this session's pings measure
 * ({@link PathDelay}). When direct memory is nearly used up, the streams holding the most bytes
 * get no more credit and are not read ({@link StreamPressure}) until it frees; the connection
 * keeps being read for the others, and nothing is closed for it.
 *
 * <h3>Closing</h3>
 * Every end of the session is logged once with its reason ({@link #close(String, boolean)},
 * an error seen in the pipeline, a close from this side, or the peer's), at WARN unless asked for.
 *
 * When the connection closes, every stream is reset with {@link ResetCode#SESSION_CLOSED}.
 */
public final class MuxSession extends ChannelDuplexHandler {
    private static final Logger log = LoggerFactory.getLogger(MuxSession.class);
    /** A stream with this much sent within the sparse epoch and waiting moves to the bulk lane. */
    static final int BULK_BYTES = 4 * FrameScheduler.QUANTUM;

    /** How long a session outlives a bulk lane the peer closed cleanly, waiting for its express lane to close. */
    static final long BULK_CLOSE_GRACE_MILLIS = 5_000;

    private final boolean server;
    private final MuxSettings settings;
    private final StreamAcceptor acceptor;
    private final IntObjectMap<MuxStream> streams = new IntObjectHashMap<>();
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
    private LaneWriter express;
    /** What this session's lane owners share. */
    private final SessionShare share;
    /** On the express owner: the bulk owner once its lane is attached, else null. Event loop only. */
    private volatile MuxSession bulkOwner;
    /** Why the bulk lane is closing, once known; event loop only. */
    private String bulkLaneFailure;
    /** On a bulk owner: the session's express owner; null on the express owner. */
    private final MuxSession expressOwner;
    /** Lane frames are accepted: this side offered the express lane, or opened it. */
    private boolean lanes;
    /** This owner's part in moving streams between the owners. */
    private final StreamMoves moves;
    private final java.util.concurrent.atomic.AtomicBoolean laneClaimed = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile int peerInitialWindow = -1;
    private int nextStreamId;
    private int lastPeerStreamId;
    private boolean flushScheduled;
    private volatile long rttNanos;
    /** The path's delay as this session's pings see it; a bulk owner shares its express owner's. */
    private final PathDelay delay;
    private StreamPressure pressure;
    private static final long RTT_PROBE_MILLIS = 1000;
    private static final long BUSY_PROBE_MILLIS = 50;
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
        this.share = new SessionShare(settings);
        this.delay = new PathDelay();
        this.expressOwner = null;
        this.moves = new StreamMoves(this, share);
    }

    /** A bulk owner of {@code session}'s streams (see {@link #newBulkOwner}). */
    private MuxSession(MuxSession session) {
        this.server = session.server;
        this.settings = session.settings;
        this.acceptor = null;
        this.share = session.share;
        this.delay = session.delay;
        this.expressOwner = session;
        this.moves = new StreamMoves(this, share);
        this.lanes = true;
        this.foldOpens = false;
        this.nextStreamId = -1;
    }

    /**
     * The handler that runs this started session's bulk lane: the last but one of the lane's
     * pipeline (before {@link BulkLane}), on the loop the lane runs on, which should be another
     * than this session's. Hand the lane to {@link #attachBulkLane} once it joined. Any thread.
     */
    public MuxSession newBulkOwner() {
        if (!isStarted()) {
            throw new IllegalStateException("session not started");
        }
        return new MuxSession(this);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.express = new LaneWriter(ctx);
        this.scheduler = new FrameScheduler(ctx.channel());
        this.pressure = new StreamPressure(ctx.channel(), streams.values());
        if (expressOwner != null) {
            start(expressOwner.peerInitialWindow);
        }
    }

    /**
     * Accepts lane markers from the peer: this side offered the express lane (server) or is
     * about to open it (client). Event loop only.
     */
    public void allowLanes() {
        lanes = true;
    }

    /**
     * Makes {@code owner} ({@link #newBulkOwner}), in the pipeline of {@code lane}, a connection of
     * this session joined after login, the session's bulk lane: streams that turn bulk move there
     * from now on. A second lane, or one attached to a session that is gone, is closed. Any thread.
     */
    public void attachBulkLane(Channel lane, MuxSession owner) {
        if (!ctx.executor().inEventLoop()) {
            ctx.executor().execute(() -> attachBulkLane(lane, owner));
            return;
        }
        if (bulkOwner != null || !ctx.channel().isActive() || owner.expressOwner != this) {
            log.warn("{} bulk lane {} refused: {}", ctx.channel(), lane, bulkOwner != null
                    ? "the session has one already" : owner.expressOwner != this ? "not this session's lane"
                    : "the session is closed");
            lane.close();
            return;
        }
        lanes = true;
        bulkOwner = owner;
        TunnelSocket.keepQueuesShort(lane);
        lane.closeFuture().addListener(f -> ctx.executor().execute(() -> bulkLaneClosed(lane)));
        log.debug("{} bulk lane {} attached, on {}", ctx.channel(), lane,
                lane.eventLoop() == ctx.channel().eventLoop() ? "the session's loop" : "another loop");
    }

    /** Whether the session has its bulk lane (event loop). */
    public boolean hasBulkLane() {
        return bulkOwner != null;
    }

    /** True once: the caller may attach the session's bulk lane (any thread). */
    public boolean claimBulkLane() {
        return laneClaimed.compareAndSet(false, true);
    }

    /** Times a stream of this session moved to the bulk lane, counted by each side for its own moves (any thread). */
    public long laneMoves() {
        return share.laneMoves();
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
        rttProbe = ctx.executor().schedule(this::probeRtt, RTT_PROBE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * Pings every {@link #BUSY_PROBE_MILLIS} while streams carry data, so that window control
     * ({@link WindowControl}) sees a queue build within a few round trips, and checks once per
     * {@link #RTT_PROBE_MILLIS} when idle.
     */
    private void probeRtt() {
        boolean busy = carriedData && ctx.channel().isActive();
        if (busy) {
            carriedData = false;
            if (expressOwner != null) {
                expressOwner.onLoop(expressOwner::ping); // samples come from the express lane
            } else {
                ping();
            }
        }
        if (ctx.channel().isActive()) {
            rttProbe = ctx.executor().schedule(this::probeRtt, busy ? BUSY_PROBE_MILLIS : RTT_PROBE_MILLIS,
                    TimeUnit.MILLISECONDS);
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
        stream.peerKnows = false;
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
        MuxSession owner = bulkOwner;
        if (owner != null) {
            owner.onLoop(owner::ping);
        }
    }

    /** Smoothed round-trip time of the last express-lane pings (any thread), or 0 before the first pong. */
    public long rttNanos() {
        return expressOwner != null ? expressOwner.rttNanos() : rttNanos;
    }

    /**
     * The path's round trip without a queue (any thread), or 0 before the first pong: the
     * smallest ping of the last minutes ({@link PathDelay}), which window control sizes windows by.
     */
    public long minRttNanos() {
        return delay.minRttNanos();
    }

    /** The path's delay that window control sizes this session's streams' windows by. */
    PathDelay pathDelay() {
        return delay;
    }

    /** Bytes of receive window this session's streams hold now (any thread). */
    public long committedWindow() {
        return share.committed();
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

    /** Streams open on this session, on either lane (any thread). */
    public int streamCount() {
        return share.streams();
    }

    /**
     * Moving average of how long a stream with bytes to send waited for its turn on this
     * owner's connection (nanoseconds; 0 before any wait). On a session's express owner that is
     * the wait of the streams that did not move, the interactive ones: what a user of the tunnel
     * feels. Read from any thread (a dashboard).
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
        MuxSession owner = bulkOwner;
        return windowStalls + (owner != null ? owner.windowStalls : 0);
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
        onStreamFrame(expressOwner == null ? LaneOrder.EXPRESS : LaneOrder.BULK, frame, true);
    }

    /**
     * A frame of a stream that arrived on {@code lane}: read from this owner's own connection
     * ({@code own}), or, on a bulk owner, one the express owner read for a stream that moved here.
     */
    void onStreamFrame(int lane, Frame frame, boolean own) {
        if (frame instanceof OpenFrame open) {
            if (expressOwner != null) {
                throw new ProtocolException("OPEN of stream " + open.streamId() + " on the bulk lane");
            }
            onOpen(open);
            return;
        }
        if (frame instanceof LaneFrame && (!lanes || lane != LaneOrder.EXPRESS)) {
            throw new ProtocolException("lane frame on stream " + frame.streamId() + (lanes
                    ? " on the bulk lane" : " from a peer that has no express lane here"));
        }
        MuxStream stream = streams.get(frame.streamId());
        if (stream == null) {
            if (own && lanes) {
                moves.route(lane, frame);
            } else {
                ReferenceCountUtil.release(frame);
            }
            return;
        }
        if (frame instanceof DataFrame) {
            carriedData = true;
            stream.onLaneFrame(lane, frame, System.nanoTime());
            pressure.afterData(stream);
        } else if (frame instanceof LaneFrame marker) {
            moves.onLaneFrame(stream, marker);
        } else if (frame instanceof WindowUpdateFrame update) {
            stream.onWindowUpdate(update.increment());
        } else if (frame instanceof ResetFrame reset) {
            stream.onRemoteReset(reset.code());
        }
    }

    /** Runs {@code task} on this session's loop: at once when already there. */
    void onLoop(Runnable task) {
        if (ctx.executor().inEventLoop()) {
            task.run();
        } else {
            ctx.executor().execute(task);
        }
    }

    /** Why the bulk lane {@code lane} is closing, for the session's one log line (any thread). */
    void bulkLaneFailed(Channel lane, String reason) {
        onLoop(() -> {
            if (bulkOwner != null && bulkOwner.channel() == lane && bulkLaneFailure == null) {
                bulkLaneFailure = reason;
            }
        });
    }

    /**
     * The bulk lane is gone. After a failure the session ends at once. A lane the peer closed
     * cleanly is the first half of the peer leaving: its express lane closes right behind it,
     * and its last frames there (a stream's final bytes, its FIN) may still be on the way, read
     * after the bulk lane's FIN since the two connections are read apart. The session then goes
     * on with its express lane alone (no stream moves any more; those on the bulk lane were
     * reset with it) and ends when the express lane closes, or after
     * {@link #BULK_CLOSE_GRACE_MILLIS} if it does not.
     */
    private void bulkLaneClosed(Channel lane) {
        if (bulkOwner == null || bulkOwner.channel() != lane || !ctx.channel().isActive()) {
            return;
        }
        if (bulkLaneFailure != null) {
            close("bulk lane " + bulkLaneFailure, false);
            return;
        }
        log.debug("{} bulk lane closed by the peer: the session ends with its express lane, within {} ms",
                ctx.channel(), BULK_CLOSE_GRACE_MILLIS);
        ctx.executor().schedule(() -> {
            if (ctx.channel().isActive()) {
                close("bulk lane closed by the peer, and the express lane still open " + BULK_CLOSE_GRACE_MILLIS
                        + " ms later", false);
            }
        }, BULK_CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void onControl(ControlFrame control) {
        if (control.message() instanceof Ping ping) {
            writeFrame(new ControlFrame(new Pong(ping.payload())));
        } else if (control.message() instanceof Pong pong) {
            long sample = System.nanoTime() - pong.payload();
            // a bulk lane's pongs wait behind its transfers' bytes: only the express lane's are samples
            if (expressOwner == null && sample >= 0 && sample < TimeUnit.MINUTES.toNanos(2)) {
                long rtt = rttNanos == 0 ? sample : (7 * rttNanos + sample) / 8;
                rttNanos = rtt;
                delay.onSample(sample, System.nanoTime());
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
        share.opened(settings.initialWindow());
        return stream;
    }

    /** Tops a new stream's guaranteed window up to the start window, as far as the budgets allow: the credit to grant. */
    private int startWindowBoost(MuxStream stream) {
        return stream.window().grow(settings.startWindow() - settings.initialWindow(), share.budget);
    }

    private void writeBoost(MuxStream stream, int boost) {
        if (boost > 0) {
            writeFrame(new WindowUpdateFrame(stream.id(), boost));
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushSockets();
        pressure.check();
        ctx.fireChannelReadComplete();
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
        scheduler.clear();
        if (bulkOwner != null) {
            bulkOwner.channel().close();
        }
        if (lanes) {
            share.closeAll(); // a stream on its way to the bulk owner finds its hand-off closed, and ends there
        }
        pressure.stop();
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
        if (expressOwner != null) {
            log.debug("{} bulk lane closed: {} ({} streams on it reset)", ctx.channel(), reason, openStreams);
        } else if (!isStarted()) {
            log.debug("{} closed before login completed: {}", ctx.channel(), reason);
        } else if (closeAsked || (closeReason == null && server)) {
            log.info("{} session closed: {} ({} open streams reset)", ctx.channel(), reason, openStreams);
        } else {
            log.warn("{} session closed: {} ({} open streams reset)", ctx.channel(), reason, openStreams);
        }
    }

    // ---- used by MuxStream ----

    /** Writes {@code frame} on this owner's lane (see {@link LaneWriter#write}). */
    void writeFrame(Frame frame) {
        express.write(frame);
    }

    /**
     * Writes frames on this owner's connection, without flushing: the session flushes once per
     * event-loop turn.
     */
    private final class LaneWriter {
        private final Channel channel;
        private final ChannelHandlerContext own;
        /** A frame is being written; frames written meanwhile wait in {@link #reentrant}. */
        private boolean writing;
        private final ArrayDeque<Frame> reentrant = new ArrayDeque<>();
        private boolean dirty;

        LaneWriter(ChannelHandlerContext own) {
            this.channel = own.channel();
            this.own = own;
        }

        /**
         * Writes {@code frame} behind every frame written before it on this lane. A large DATA
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
        return share.budget;
    }

    /** Gives a finished stream's receive window back to the budgets (once per stream). */
    private void releaseWindow(MuxStream stream) {
        if (!stream.windowReleased) {
            stream.windowReleased = true;
            share.closed(stream.window().window());
        }
    }

    StreamMoves moves() {
        return moves;
    }

    /** On the express owner, the bulk owner once its lane is attached; else null. */
    MuxSession bulkOwner() {
        return bulkOwner;
    }

    /** On a bulk owner, the session's express owner; null on the express owner. */
    MuxSession expressOwner() {
        return expressOwner;
    }

    /** {@code stream} is held here (it landed, or is reset here). */
    void adopt(MuxStream stream) {
        streams.put(stream.id(), stream);
    }

    /** {@code stream} leaves this owner for the other: nothing here schedules or wakes it any more. */
    void detach(MuxStream stream) {
        streams.remove(stream.id());
        scheduler.remove(stream);
    }

    void watchHeld(MuxStream stream) {
        moves.watchHeld(stream);
    }

    void remove(MuxStream stream) {
        streams.remove(stream.id());
        if (stream.unannouncedOpen != null) {
            unannounced.remove(stream);
        }
        scheduler.remove(stream);
        releaseWindow(stream);
        if (stream.moveAsked) {
            share.unpublish(stream.id());
        }
    }

    /** Runs the scheduler: the connection may take more. */
    private void wakeWaiting() {
        if (ctx.channel().isWritable()) {
            scheduler.run(System.nanoTime());
        }
    }

    /** {@code stream} has DATA or a FIN it may send: the scheduler sends it in its turn. */
    void dataReady(MuxStream stream) {
        if (!ctx.channel().isActive()) {
            return;
        }
        carriedData = true;
        long now = System.nanoTime();
        if (!stream.scheduled) {
            moves.afterData(stream, now);
        }
        scheduler.ready(stream, now);
    }

    void logStreamError(MuxStream stream, String reason) {
        log.warn("{} {} reset: {}", ctx.channel(), stream, reason);
    }

    private void flushNow() {
        flushScheduled = false;
        queueDelayNanos = scheduler.queueDelayNanos();
        maxQueueDelayNanos = Math.max(maxQueueDelayNanos, scheduler.takeMaxQueueDelayNanos());
        express.dirty = true; // flushes what the handlers around the session wrote too
        express.flush();
    }

    void flushSockets() {
        for (int i = 0; i < socketsToFlush.size(); i++) {
            socketsToFlush.get(i).flush();
        }
        socketsToFlush.clear();
    }
}
