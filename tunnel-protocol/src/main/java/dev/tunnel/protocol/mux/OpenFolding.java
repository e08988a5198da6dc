package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.OpenFrame;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The OPENs of the streams this side opens. When the peer accepts folded OPENs
 * ({@link dev.tunnel.protocol.Capabilities#OPEN_DATA}, {@link #fold}), an OPEN waits for its
 * stream's first bytes, at most until the next event-loop turn has read the sockets once more
 * (the public connection's first bytes usually come with the first read after its accept), and
 * leaves with them as one frame ({@link DataFrame#inOpen}); a stream that has nothing to send by
 * then (the app speaks first) gets its OPEN alone. Each OPEN is followed by the stream's
 * start-window credit.
 *
 * <p>Invariant: OPENs leave in stream-id order, as the peer requires, and no other frame of a
 * stream leaves before its OPEN. A stream reset before its OPEN left sends nothing
 * ({@link #forget}).
 *
 * <p>Threading: the session's event loop only.
 */
final class OpenFolding {
    private final FrameWriter writer;
    private final EventExecutor executor;
    /** Streams whose OPEN waits for their first bytes, in id order. */
    private final ArrayDeque<MuxStream> waiting = new ArrayDeque<>();
    private final Runnable announceTask = this::announceWaiting;
    private boolean fold;
    private boolean scheduled;
    /** {@link #announce} is writing; the waiting OPENs' turn came meanwhile (a timer run by a write). */
    private boolean announcing;
    private boolean due;

    OpenFolding(FrameWriter writer, EventExecutor executor) {
        this.writer = writer;
        this.executor = executor;
    }

    void fold(boolean peerAccepts) {
        this.fold = peerAccepts;
    }

    /** Sends {@code stream}'s OPEN, then {@code credit}; or holds both for its first bytes. */
    void open(MuxStream stream, OpenFrame open, int credit) {
        if (!fold) {
            writer.write(open);
            writer.writeCredit(stream.id(), credit);
            return;
        }
        stream.unannouncedOpen = open;
        stream.unannouncedCredit = credit;
        waiting.add(stream);
        if (!scheduled) {
            // due at once, yet run only after the loop's next look at its sockets
            scheduled = true;
            executor.schedule(announceTask, 0, TimeUnit.NANOSECONDS);
        }
    }

    /** Sends a DATA frame of {@code stream} (ownership of {@code data} passes), folded into its OPEN when it fits. */
    void writeData(MuxStream stream, ByteBuf data, boolean fin) {
        if (stream.unannouncedOpen != null
                && announce(stream, data.readableBytes() <= DataFrame.MAX_IN_OPEN ? data : null, fin)) {
            return;
        }
        writer.write(new DataFrame(stream.id(), data, fin));
    }

    /** Writes a frame of {@code stream} other than DATA, behind its OPEN. */
    void write(MuxStream stream, Frame frame) {
        if (stream.unannouncedOpen != null) {
            announce(stream, null, false);
        }
        writer.write(frame);
    }

    /** {@code stream} is gone: its OPEN, if it still waits, never leaves. */
    void forget(MuxStream stream) {
        if (stream.unannouncedOpen != null) {
            waiting.remove(stream);
            stream.unannouncedOpen = null;
        }
    }

    void clear() {
        waiting.clear();
    }

    /** The OPENs still waiting go out alone: their streams had no bytes by this turn. */
    private void announceWaiting() {
        scheduled = false;
        if (announcing) {
            due = true; // the write in progress finishes its OPEN first, then sends these
        } else if (!waiting.isEmpty()) {
            announce(waiting.peekLast(), null, false);
        }
    }

    /**
     * Writes the OPENs waiting up to {@code stream}'s, in id order, each with its credit behind
     * it; {@code stream}'s carries {@code first} when not null. Returns whether {@code first}
     * went out (ownership passed).
     */
    private boolean announce(MuxStream stream, ByteBuf first, boolean fin) {
        boolean folded = false;
        boolean outer = !announcing;
        announcing = true;
        try {
            MuxStream next;
            while ((next = waiting.peek()) != null && next.id() <= stream.id()) {
                waiting.poll();
                OpenFrame open = next.unannouncedOpen;
                next.unannouncedOpen = null;
                boolean folds = next == stream && first != null;
                writer.write(folds ? DataFrame.inOpen(open, first, fin) : open);
                folded |= folds;
                writer.writeCredit(next.id(), next.unannouncedCredit);
            }
        } finally {
            if (outer) {
                announcing = false;
            }
        }
        if (outer && due) {
            due = false;
            announceWaiting();
        }
        return folded;
    }
}
