package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.WindowUpdateFrame;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the session's frames on its connection, and flushes it and the relayed sockets.
 *
 * <h3>Order</h3>
 * A frame is written behind every frame written before it, and never between another frame's
 * header and payload: a large DATA frame leaves the encoder as two buffers in two writes, and a
 * write can run other code before it returns (a writability change fires handlers; an
 * {@code EmbeddedChannel} runs due timers), so a frame written from there waits in
 * {@link #reentrant} until the outer write is done.
 *
 * <h3>Flushes</h3>
 * Frames are written without flushing; the first write of an event-loop turn schedules one
 * flush, so many small streams share TLS records and syscalls. Sockets written from the frames of
 * one read batch are flushed once, when the batch ends ({@link #flushSockets}).
 *
 * <p>Threading: the session's event loop only.
 */
final class FrameWriter {
    private final ChannelHandlerContext ctx;
    private final ArrayDeque<Frame> reentrant = new ArrayDeque<>();
    private final List<Channel> socketsToFlush = new ArrayList<>();
    private final Runnable flushTask = this::flushNow;
    private boolean writing;
    private boolean flushScheduled;

    FrameWriter(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** Writes {@code frame} (ownership passes), or releases it when the connection is gone. */
    void write(Frame frame) {
        Channel channel = ctx.channel();
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
            ctx.write(frame, ctx.voidPromise());
            Frame next;
            while ((next = reentrant.poll()) != null) {
                if (channel.isActive()) {
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

    /** Grants the peer {@code credit} more bytes on stream {@code id}, if any. */
    void writeCredit(int id, int credit) {
        if (credit > 0) {
            write(new WindowUpdateFrame(id, credit));
        }
    }

    /** Flushes what the session and the handlers around it wrote this turn. */
    private void flushNow() {
        flushScheduled = false;
        ctx.flush();
    }

    /** Flushes {@code socket} once the current batch of frames is handled. */
    void flushLater(Channel socket) {
        int size = socketsToFlush.size();
        if (size == 0 || socketsToFlush.get(size - 1) != socket) {
            socketsToFlush.add(socket);
        }
    }

    void flushSockets() {
        for (int i = 0; i < socketsToFlush.size(); i++) {
            socketsToFlush.get(i).flush();
        }
        socketsToFlush.clear();
    }
}
