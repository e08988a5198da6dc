package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.OpenFrame;
import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.ResetFrame;
import dev.tunnel.protocol.WindowUpdateFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.util.ArrayDeque;

/**
 * One bidirectional byte stream inside a {@link MuxSession}: a public connection on the server,
 * a local-app connection on the client.
 *
 * <h3>Threading</h3>
 * Every method runs on the event loop of the session's lane owner that holds the stream (see
 * {@link MuxSession}, "Lanes"); the sockets relayed through the stream are registered on that
 * same loop. A stream that moves to the bulk owner is <em>in transit</em> from the moment it
 * leaves the express owner until it lands: its handler's socket is deregistered from the one
 * loop and registered on the other, the loop-to-loop hand-over orders what each touched, and
 * what the handler does meanwhile (bytes it read before the move, a close, bytes its socket took)
 * is kept here and acted on when the stream lands.
 *
 * <h3>Flow control</h3>
 * The sender may have at most the peer's credit in flight. {@link #write} sends what the
 * credit allows and keeps the rest (at most the one buffer the caller just read) until a
 * WINDOW_UPDATE arrives; what it may send waits in the stream until the session's
 * {@link FrameScheduler} gives it a turn on the connection. {@link #isWritable()} is false while
 * anything waits, while the credit is zero, or while memory pressure squeezes the stream
 * ({@link StreamPressure}), and {@link StreamHandler#onWritable()} says when to read again. It does not depend on the
 * connection's watermark: a stream whose bytes left may read again, and its next bytes wait
 * here, where a sparse stream can still go ahead of a backlogged one. On the receiving side, credit is
 * returned only through {@link #consumed(int)}: see {@link ReceiveWindow}.
 *
 * <h3>Reference counting</h3>
 * {@link #write} takes ownership of the buffer; {@link StreamHandler#onData} hands ownership to
 * the handler. Bytes still waiting when the stream is reset are released here.
 *
 * <h3>Closing</h3>
 * {@link #shutdownOutput()} sends FIN after the waiting bytes (half-close); the stream is done
 * once FIN went both ways. {@link #reset(int)} aborts both directions at once.
 */
public final class MuxStream {
    /**
     * Largest DATA payload this side sends: one read of a relayed socket (Transports.MAX_READ)
     * goes out as one frame. Peers accept up to 1 MiB (FrameDecoder.DEFAULT_MAX_DATA_PAYLOAD).
     */
    static final int MAX_CHUNK = 256 * 1024;

    /** The lane owner that holds the stream: set once more when it lands on the bulk owner. */
    private volatile MuxSession session;
    private final int id;
    private StreamHandler handler;

    private int sendWindow;
    private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>(2);
    private int waitingBytes;
    private boolean finQueued;
    private boolean finSent;
    private boolean wantWritable;
    /** Bytes wait and the credit is used up; set once per stall, cleared by a window update. */
    private boolean stalled;
    boolean windowReleased;

    /** This side asked to move the stream to the bulk lane, or answered the peer's request. */
    boolean moveAsked;
    /** This side wrote its lane marker: the stream left, or is leaving, the express owner. */
    boolean moving;
    /** Between owners (see Threading); then {@link #consumedInTransit} and {@link #resetInTransit} wait. */
    private boolean inTransit;
    private int consumedInTransit;
    /** The code of a reset made in transit, sent once the stream landed; -1 if none. */
    private int resetInTransit = -1;
    /**
     * The peer has seen this stream's OPEN: it opened the stream, or a frame of the stream came
     * from it. Until then the stream stays on the express lane, behind its OPEN, since DATA on the
     * bulk lane could otherwise reach the peer before the stream exists there.
     */
    boolean peerKnows = true;
    /**
     * This side opened the stream and has not written its OPEN yet ({@link MuxSession#openStream}
     * holds it for the first bytes, to send both in one frame): the OPEN, and the start-window
     * credit to grant right behind it. Null once written.
     */
    OpenFrame unannouncedOpen;
    int unannouncedBoost;
    /** Order of the DATA arriving on the session's lanes. */
    final LaneOrder order = new LaneOrder();

    // scheduling state, owned by FrameScheduler
    boolean scheduled;
    int deficit;
    long readySinceNanos;
    private long sentEpochNanos;
    private int sentInEpoch;

    private final ReceiveWindow receiveWindow;
    private boolean finReceived;
    private boolean closed;

    MuxStream(MuxSession session, int id, int sendWindow, MuxSettings settings) {
        this.session = session;
        this.id = id;
        this.sendWindow = sendWindow;
        this.receiveWindow = new ReceiveWindow(settings.initialWindow(), settings.maxWindow(), System.nanoTime());
    }

    /** Credit this stream may still send before the peer's next WINDOW_UPDATE. */
    public int sendCredit() {
        return sendWindow;
    }

    public int id() {
        return id;
    }

    /** Sets who receives this stream's events; must be set before the first read completes. */
    public void handler(StreamHandler handler) {
        this.handler = handler;
    }

    /** The lane owner that holds the stream now. */
    MuxSession session() {
        return session;
    }

    /**
     * Sends {@code data} (ownership passes to the stream) as far as the credit allows.
     *
     * @return {@link #isWritable()} after the write
     */
    public boolean write(ByteBuf data) {
        if (closed || finQueued) {
            data.release();
            return false;
        }
        if (!data.isReadable()) {
            data.release();
        } else {
            waitingBytes += data.readableBytes();
            waiting.add(data);
            if (!inTransit) {
                noteStall();
                drain();
            }
        }
        return isWritable();
    }

    /** Half-closes: FIN goes out after the bytes still waiting for credit. */
    public void shutdownOutput() {
        if (closed || finQueued) {
            return;
        }
        finQueued = true;
        if (!inTransit) {
            drain();
        }
    }

    /** Aborts the stream at both ends; bytes still waiting are dropped. */
    public void reset(int code) {
        if (closed) {
            return;
        }
        boolean announced = unannouncedOpen == null;
        close();
        if (inTransit) {
            resetInTransit = code;
        } else if (announced) {
            session.writeFrame(new ResetFrame(id, code));
        } // else the peer never heard of it: close() dropped its OPEN, nothing goes out
    }

    /**
     * True when a write now would go out at once. When false, the handler's
     * {@link StreamHandler#onWritable()} is called once it becomes true.
     */
    public boolean isWritable() {
        if (closed || finQueued) {
            return false;
        }
        if (!waiting.isEmpty() || sendWindow <= 0 || inTransit) {
            wantWritable = true;
            return false;
        }
        if (receiveWindow.squeezed()) {
            wantWritable = true; // memory pressure (StreamPressure): afterSending tells when it is over
            return false;
        }
        return true;
    }

    /**
     * True when {@code bytes} more may wait in this stream with at most {@code limit} bytes
     * waiting in all: for a sender that drops rather than waits (a UDP association), which queues
     * a short burst while credit or the connection is briefly short instead of dropping it, and
     * drops beyond the bound. False once the stream is closed or half-closed, or while memory
     * pressure squeezes the stream.
     */
    public boolean canQueue(int bytes, int limit) {
        return !closed && !finQueued && !receiveWindow.squeezed() && (long) waitingBytes + bytes <= limit;
    }

    /** Bytes this stream holds: received and not yet consumed, and written and not yet sent. */
    int heldBytes() {
        return receiveWindow.buffered() + waitingBytes;
    }

    /** Bytes written and not yet sent as DATA (waiting for credit or for the connection). */
    public int queuedBytes() {
        return waitingBytes;
    }

    /**
     * Raises this stream's receive window to at least {@code floor}, as far as the session's and
     * the process's budgets grant, and keeps auto-tuning from shrinking it below what was granted:
     * for a stream whose sender cannot wait (UDP), so that a credit round trip slower than the
     * path's minimum RTT (a busy event loop) costs no datagrams. Returns the window now.
     */
    public int holdReceiveWindow(int floor) {
        if (inTransit) {
            return receiveWindow.window();
        }
        int growth = receiveWindow.raiseFloor(floor, session.budget());
        if (growth > 0 && !closed && !finReceived) {
            session.writeFrame(this, new WindowUpdateFrame(id, growth));
        }
        return receiveWindow.window();
    }

    /** The consumer took {@code bytes} of the data this stream delivered: return credit. */
    public void consumed(int bytes) {
        if (closed || finReceived) {
            return;
        }
        if (inTransit) {
            consumedInTransit += bytes;
            return;
        }
        int credit = receiveWindow.onConsumed(bytes, System.nanoTime(), session.pathDelay(), session.budget());
        if (credit > 0) {
            session.writeFrame(this, new WindowUpdateFrame(id, credit));
        }
    }

    /** Flushes {@code socket} once the session has processed the current batch of frames. */
    public void flushLater(Channel socket) {
        session.flushLater(socket);
    }

    /** The receive window this stream currently grants (grows with auto-tuning). */
    public int receiveWindow() {
        return receiveWindow.window();
    }

    ReceiveWindow window() {
        return receiveWindow;
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "stream " + id;
    }

    // ---- called by MuxSession ----

    void onData(DataFrame frame) {
        ByteBuf data = frame.content();
        int bytes = data.readableBytes();
        if (finReceived) {
            data.release();
            abort(ResetCode.PROTOCOL_ERROR, "DATA after FIN");
            return;
        }
        if (!receiveWindow.onReceived(bytes)) {
            data.release();
            abort(ResetCode.FLOW_CONTROL_ERROR, "peer sent " + bytes + " bytes with "
                    + receiveWindow.available() + " bytes of credit");
            return;
        }
        if (bytes > 0 && handler != null) {
            handler.onData(data);
        } else {
            data.release();
        }
        if (frame.fin()) {
            finReceived = true;
            if (handler != null) {
                handler.onFin();
            }
            completeIfDone();
        }
    }

    void onWindowUpdate(int increment) {
        peerKnows = true;
        long window = (long) sendWindow + increment;
        if (window > Integer.MAX_VALUE) {
            abort(ResetCode.FLOW_CONTROL_ERROR, "window update overflows the send window");
            return;
        }
        sendWindow = (int) window;
        if (sendWindow > 0) {
            stalled = false;
        }
        if (!waiting.isEmpty() || scheduled) {
            drain();
        } else {
            afterSending();
        }
    }

    void onRemoteReset(int code) {
        if (closed) {
            return;
        }
        close();
        if (handler != null) {
            handler.onReset(code);
        }
    }

    /** The session connection became writable again after this stream waited for it. */
    void notifyWritable() {
        if (!closed && handler != null) {
            handler.onWritable();
        }
    }

    /** The session ended: abort without sending anything. */
    void onSessionClosed() {
        if (closed) {
            return;
        }
        closed = true;
        releaseWaiting();
        if (handler != null) {
            handler.onReset(ResetCode.SESSION_CLOSED);
        }
    }

    /** Hands the stream to the session's scheduler when it has something it may send. */
    private void drain() {
        if (hasSendable()) {
            session.dataReady(this);
        } else if (finSent) {
            completeIfDone();
        }
    }

    /** Bytes (or a FIN) that may go out now: waiting bytes with credit, or a FIN behind them. */
    boolean hasSendable() {
        if (closed) {
            return false;
        }
        return waiting.isEmpty() ? finQueued && !finSent : sendWindow > 0;
    }

    /**
     * Sends one DATA frame of at most {@code limit} bytes (or the FIN alone): called by the
     * scheduler when it is this stream's turn. Returns the payload bytes sent.
     */
    int sendData(int limit, long nowNanos) {
        if (waiting.isEmpty()) {
            session.writeData(this, Unpooled.EMPTY_BUFFER, true);
            finSent = true;
            return 0;
        }
        ByteBuf head = waiting.peek();
        int bytes = Math.min(Math.min(sendWindow, head.readableBytes()), Math.min(limit, MAX_CHUNK));
        ByteBuf chunk = bytes == head.readableBytes() ? waiting.poll() : head.readRetainedSlice(bytes);
        sendWindow -= bytes;
        waitingBytes -= bytes;
        noteStall();
        boolean fin = finQueued && waiting.isEmpty();
        session.writeData(this, chunk, fin);
        finSent |= fin;
        if (nowNanos - sentEpochNanos > FrameScheduler.SPARSE_EPOCH_NANOS) {
            sentEpochNanos = nowNanos;
            sentInEpoch = 0;
        }
        sentInEpoch += bytes;
        if (!fin) {
            session.moves().afterData(this, nowNanos);
        }
        return bytes;
    }

    /**
     * Counts a window stall on the session when bytes wait and the peer's credit is used up:
     * once per stall (until a window update gives credit again), not per byte or write.
     */
    private void noteStall() {
        if (!stalled && sendWindow <= 0 && !waiting.isEmpty()) {
            stalled = true;
            session.windowStalled();
        }
    }

    /**
     * Whether this stream's sending looks like a transfer rather than an exchange: more than
     * {@link MuxSession#BULK_BYTES} sent in the current epoch and waiting, together.
     */
    boolean turnedBulk(long nowNanos) {
        return (long) sentRecently(nowNanos) + waitingBytes >= MuxSession.BULK_BYTES;
    }

    /** A DATA or lane frame of this stream arrived on {@code lane}. */
    void onLaneFrame(int lane, dev.tunnel.protocol.Frame frame, long nowNanos) {
        peerKnows = true;
        boolean wasHolding = order.holding();
        // within its credit a sender has at most the window in flight; the rest is room for frame overhead
        String error = order.offer(lane, frame, 2L * receiveWindow.window() + 16 * 1024,
                nowNanos, this::onOrderedData);
        if (error != null) {
            abort(ResetCode.FLOW_CONTROL_ERROR, error);
        } else if (!wasHolding && order.holding()) {
            session.watchHeld(this);
        }
    }

    private void onOrderedData(DataFrame frame) {
        if (closed) {
            frame.release();
        } else {
            onData(frame);
        }
    }

    /** Aborts the stream for {@code reason}, logged: the peer or a lane is broken. */
    void fail(int code, String reason) {
        if (!closed) {
            abort(code, reason);
        }
    }

    // ---- moving to the bulk owner ----

    /** Whether the stream may move to another owner now: the peer knows it, and its handler can move. */
    boolean canMove() {
        return !closed && peerKnows && unannouncedOpen == null && handler != null && handler.canMove();
    }

    /**
     * The stream leaves its owner: in transit until {@code landed} (run by the handler on
     * {@code loop}, or wherever its move failed) calls {@link MuxSession}'s landing.
     */
    void leave(io.netty.channel.EventLoop loop, java.util.function.Consumer<Throwable> landed) {
        inTransit = true;
        handler.moveTo(loop, landed);
    }

    /** The stream is on {@code owner} now. */
    void arrive(MuxSession owner) {
        session = owner;
        inTransit = false;
    }

    /** A stream reset while in transit: its RESET goes out now, on the owner it landed on. */
    void resetAfterMove() {
        if (resetInTransit >= 0) {
            session.writeFrame(new ResetFrame(id, resetInTransit));
            resetInTransit = -1;
        }
    }

    /** Landed with what waited for it delivered: returns the credit and sends what the handler wrote meanwhile. */
    void landed() {
        if (closed) {
            return;
        }
        if (consumedInTransit > 0) {
            int bytes = consumedInTransit;
            consumedInTransit = 0;
            consumed(bytes);
        }
        noteStall();
        drain();
        afterSending();
    }

    /** Bytes sent in the current sparse-detection epoch (0 once it is over). */
    int sentRecently(long nowNanos) {
        return nowNanos - sentEpochNanos > FrameScheduler.SPARSE_EPOCH_NANOS ? 0 : sentInEpoch;
    }

    /** The scheduler has sent all it could: finish, or let the handler read again. */
    void afterSending() {
        if (finSent) {
            completeIfDone();
            return;
        }
        if (wantWritable && waiting.isEmpty() && sendWindow > 0 && !finQueued && !closed && !receiveWindow.squeezed()) {
            wantWritable = false;
            notifyWritable();
        }
    }

    private void completeIfDone() {
        if (finSent && finReceived && !closed) {
            closed = true;
            order.release();
            session.remove(this);
        }
    }

    private void abort(int code, String reason) {
        session.logStreamError(this, reason);
        close();
        session.writeFrame(new ResetFrame(id, code));
        if (handler != null) {
            handler.onReset(code);
        }
    }

    private void close() {
        closed = true;
        releaseWaiting();
        if (!inTransit) {
            session.remove(this); // else the bulk owner does, when it lands
        }
        unannouncedOpen = null;
    }

    private void releaseWaiting() {
        order.release();
        ByteBuf buf;
        while ((buf = waiting.poll()) != null) {
            buf.release();
        }
        waitingBytes = 0;
    }
}
