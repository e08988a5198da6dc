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
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries many {@link MuxStream}s over one connection (TLS or plain TCP) and answers pings: the
 * connection handler of the mux, behind the frame codec. It passes control frames other than
 * PING/PONG on, dispatches stream frames to their streams and leaves each job to one class:
 * <ul>
 *   <li>{@link StreamTable}: the open streams by id, id order, their windows in the budget;
 *   <li>{@link FrameWriter}: writes in order, one flush per event-loop turn;
 *   <li>{@link OpenFolding}: OPENs in id order, folded with the first bytes;
 *   <li>{@link FrameScheduler}: which stream's DATA goes next, sparse streams first;
 *   <li>{@link ReceiveWindow} and {@link SessionBudget}: each stream's credit, within the session's budget;
 *   <li>{@link RttProbe}: the round trip and the path delay that {@link WindowControl} uses;
 *   <li>{@link StreamPressure}: under memory pressure, the streams holding the most get no credit.
 * </ul>
 *
 * <h3>Threading</h3>
 * Runs on the connection's event loop. Sockets relayed through its streams are registered on the
 * same loop ({@link #eventLoop()}), so every stream is owned by this one thread for its whole
 * life, and nothing in the package is written by another. Getters that say so may be read from
 * any thread (a dashboard).
 *
 * <h3>Scheduling</h3>
 * Control, OPEN, RESET and WINDOW_UPDATE frames are written at once; DATA waits in its stream
 * and leaves in the order of the {@link FrameScheduler} while the connection is writable, and the
 * queues below the scheduler (Netty's outbound buffer, the kernel's unsent bytes) are kept small
 * ({@link TunnelSocket}), so a sparse stream's bytes do not queue behind a download's.
 *
 * <h3>Closing</h3>
 * Every end of the session is logged once with its reason ({@link SessionEnd}). When the connection closes, every stream is reset with {@link ResetCode#SESSION_CLOSED}.
 */
public final class MuxSession extends ChannelDuplexHandler {
    private static final Logger log = LoggerFactory.getLogger(MuxSession.class);

    private final boolean server;
    private final MuxSettings settings;
    private final StreamAcceptor acceptor;
    private final SessionBudget budget;
    private final StreamTable streams;
    private final RttProbe rtt = new RttProbe(this::ping);
    private ChannelHandlerContext ctx;
    private FrameWriter writer;
    private OpenFolding opens;
    private TunnelSocket socket;
    private FrameScheduler scheduler;
    private StreamPressure pressure;
    private final SessionEnd end = new SessionEnd();
    private volatile int peerInitialWindow = -1;
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
        this.budget = new SessionBudget(settings);
        this.streams = new StreamTable(server, budget, settings.initialWindow());
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.writer = new FrameWriter(ctx);
        this.opens = new OpenFolding(writer, ctx.executor());
        this.socket = new TunnelSocket(ctx.channel());
        this.scheduler = new FrameScheduler(ctx.channel(), socket);
        this.pressure = new StreamPressure(ctx.channel(), streams.view());
    }

    /**
     * Whether the peer listed {@link dev.tunnel.protocol.Capabilities#OPEN_DATA}: streams opened
     * here then send their OPEN with their first bytes. Off until login says so. Event loop only.
     */
    public void foldOpens(boolean peerAccepts) {
        opens.fold(peerAccepts);
    }

    /** Starts carrying streams once login told us the peer's initial window. */
    public void start(int peerInitialWindow) {
        if (peerInitialWindow < 1024) {
            throw new ProtocolException("peer announced an initial window of " + peerInitialWindow
                    + " bytes (expected at least 1024)");
        }
        this.peerInitialWindow = peerInitialWindow;
        socket.start(System.nanoTime());
        rtt.start(ctx.channel());
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
        MuxStream stream = newStream(streams.nextLocalId());
        opens.open(stream, new OpenFrame(stream.id(), proxyId, source), startWindowCredit(stream));
        return stream;
    }

    /** Sends a ping; the pong updates {@link #rttNanos()}. */
    public void ping() {
        writeFrame(new ControlFrame(new Ping(System.nanoTime())));
    }

    /** Smoothed round-trip time of the last pings (any thread), or 0 before the first pong. */
    public long rttNanos() {
        return rtt.rttNanos();
    }

    /** The path's round trip without a queue (any thread), or 0 before the first pong: see {@link PathDelay}. */
    public long minRttNanos() {
        return rtt.minRttNanos();
    }

    /** Bytes of receive window this session's streams hold now (any thread). */
    public long committedWindow() {
        return budget.committed();
    }

    /** Streams open on this session (any thread). */
    public int streamCount() {
        return budget.streams();
    }

    /**
     * Moving average of how long a stream with bytes to send waited for its turn on the
     * connection (nanoseconds; 0 before any wait): what a user of the tunnel feels. Any thread.
     */
    public long queueDelayNanos() {
        return scheduler.queueDelayNanos();
    }

    /** Largest such wait since the previous call (nanoseconds), for a dashboard polling it. */
    public long takeMaxQueueDelayNanos() {
        return scheduler.takeMaxQueueDelayNanos();
    }

    /** Times a stream had bytes to send but no credit from the peer, counted as a stall begins. Any thread. */
    public long windowStalls() {
        return windowStalls;
    }

    public Channel channel() {
        return ctx.channel();
    }

    /** The loop that runs this session; relayed sockets must be registered on it. */
    public EventLoop eventLoop() {
        return ctx.channel().eventLoop();
    }

    /**
     * Closes the session for {@code reason}, logged once when the connection is gone: at WARN
     * unless {@code asked} (a shutdown, a logout).
     */
    public void close(String reason, boolean asked) {
        end.because(reason, asked);
        ctx.close();
    }

    /** The peer may end this session at any time (a pool-mode carrier): its close logs at INFO. */
    public void peerMayClose() {
        end.peerMayClose();
    }

    // ---- the pipeline ----

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ControlFrame control) {
            if (control.message() instanceof Ping ping) {
                writeFrame(new ControlFrame(new Pong(ping.payload())));
                return;
            }
            if (control.message() instanceof Pong pong) {
                rtt.onPong(pong.payload());
            }
            ctx.fireChannelRead(control);
        } else if (!(msg instanceof Frame frame)) {
            ctx.fireChannelRead(msg);
        } else if (!isStarted()) {
            ReferenceCountUtil.release(msg);
            throw new ProtocolException("stream frame before login completed");
        } else if (frame instanceof OpenFrame open) {
            onOpen(open);
        } else {
            MuxStream stream = streams.get(frame.streamId());
            if (stream == null) {
                ReferenceCountUtil.release(frame); // reset here while the peer's frames were on the way
            } else if (frame instanceof DataFrame data) {
                rtt.carriedData();
                stream.onData(data);
                pressure.afterData(stream);
            } else if (frame instanceof WindowUpdateFrame update) {
                stream.onWindowUpdate(update.increment());
            } else if (frame instanceof ResetFrame reset) {
                stream.onRemoteReset(reset.code());
            }
        }
    }

    private void onOpen(OpenFrame open) {
        streams.checkPeerId(open.streamId());
        MuxStream stream = newStream(open.streamId());
        if (acceptor == null) {
            stream.reset(ResetCode.REFUSED);
            return;
        }
        writer.writeCredit(stream.id(), startWindowCredit(stream));
        acceptor.accept(stream, open.proxyId(), open.source());
    }

    private MuxStream newStream(int id) {
        MuxStream stream = new MuxStream(this, id, peerInitialWindow, settings);
        streams.add(stream);
        return stream;
    }

    /** Tops a new stream's guaranteed window up to the start window, as far as the budgets allow: the credit to grant. */
    private int startWindowCredit(MuxStream stream) {
        return stream.window().grow(settings.startWindow() - settings.initialWindow(), budget);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        writer.flushSockets();
        pressure.check();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            scheduler.run(System.nanoTime());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        List<MuxStream> open = streams.removeAll();
        opens.clear();
        scheduler.clear();
        pressure.stop();
        rtt.stop();
        for (MuxStream stream : open) {
            stream.onSessionClosed();
        }
        end.log(ctx.channel(), isStarted(), server, open.size());
        writer.flushSockets();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        end.failed(cause);
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        end.because("closed by this side", true);
        ctx.close(promise);
    }

    // ---- used by MuxStream, on the event loop ----

    void writeFrame(Frame frame) {
        writer.write(frame);
    }

    /** Writes a frame of {@code stream} other than DATA, behind its OPEN. */
    void writeFrame(MuxStream stream, Frame frame) {
        opens.write(stream, frame);
    }

    /** Sends a DATA frame of {@code stream} (ownership of {@code data} passes); the scheduler's turn. */
    void writeData(MuxStream stream, ByteBuf data, boolean fin) {
        opens.writeData(stream, data, fin);
    }

    void flushLater(Channel socket) {
        writer.flushLater(socket);
    }

    ReceiveWindow.Budget budget() {
        return budget;
    }

    PathDelay pathDelay() {
        return rtt.pathDelay();
    }

    /** {@code stream} has DATA or a FIN it may send: the scheduler sends it in its turn. */
    void dataReady(MuxStream stream) {
        if (ctx.channel().isActive()) {
            rtt.carriedData();
            scheduler.ready(stream, System.nanoTime());
        }
    }

    /** {@code stream} is done or reset: it leaves the table, the scheduler and the OPENs waiting. */
    void remove(MuxStream stream) {
        streams.remove(stream);
        opens.forget(stream);
        scheduler.remove(stream);
    }

    void logStreamError(MuxStream stream, String reason) {
        log.warn("{} {} reset: {}", ctx.channel(), stream, reason);
    }

    /** A stream ran out of credit with bytes waiting. */
    void windowStalled() {
        windowStalls++; // single writer: the event loop
    }
}
