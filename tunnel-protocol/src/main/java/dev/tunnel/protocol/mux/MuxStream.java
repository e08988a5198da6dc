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
 * Every method runs on the session's event loop, the stream's one owner for its whole life; the
 * sockets relayed through the stream are registered on that same loop. Every field is written on
 * that thread only: the private ones here, each package-private one by the one class its comment
 * names.
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

    private final MuxSession session;
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
    /** The window went back to the budget; written by {@link StreamTable}. */
    boolean windowReleased;
    /**
     * The OPEN that waits for the stream's first bytes, and the start-window credit to grant right
     * behind it; null once written. Written by {@link OpenFolding}.
     */
    OpenFrame unannouncedOpen;
    int unannouncedCredit;

    // scheduling state, written by FrameScheduler
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
            noteStall();
            drain();
        }
        return isWritable();
    }

    /** Half-closes: FIN goes out after the bytes still waiting for credit. */
    public void shutdownOutput() {
        if (closed || finQueued) {
            return;
        }
        finQueued = true;
        drain();
    }

    /** Aborts the stream at both ends; bytes still waiting are dropped. */
    public void reset(int code) {
        if (closed) {
            return;
        }
        boolean announced = unannouncedOpen == null;
        close();
        if (announced) {
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
        if (!waiting.isEmpty() || sendWindow <= 0) {
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
     * True when {@code bytes} more may wait here with at most {@code limit} waiting in all: for a
     * sender that drops rather than waits (UDP), which queues a short burst and drops beyond it.
     * False once closed or half-closed, or while memory pressure squeezes the stream.
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
     * Raises this stream's receive window to at least {@code floor}, as far as the budgets grant,
     * and keeps tuning from shrinking it below that: for a sender that cannot wait (UDP), so a
     * slow credit round trip (a busy event loop) costs no datagrams. Returns the window now.
     */
    public int holdReceiveWindow(int floor) {
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
        long window = (long) sendWindow + increment;
        if (window > Integer.MAX_VALUE) {
            abort(ResetCode.FLOW_CONTROL_ERROR, "window update overflows the send window");
            return;
        }
        sendWindow = (int) window;
        stalled &= sendWindow <= 0;
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

    /** Tells the handler it may write again. */
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
        return !closed && (waiting.isEmpty() ? finQueued && !finSent : sendWindow > 0);
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
        return bytes;
    }

    /** Counts a window stall (bytes wait, no credit) once per stall, not per byte or write. */
    private void noteStall() {
        if (!stalled && sendWindow <= 0 && !waiting.isEmpty()) {
            stalled = true;
            session.windowStalled();
        }
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
        session.remove(this); // and an OPEN that still waits never leaves
    }

    private void releaseWaiting() {
        ByteBuf buf;
        while ((buf = waiting.poll()) != null) {
            buf.release();
        }
        waitingBytes = 0;
    }
}
