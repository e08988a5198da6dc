package dev.tunnel.server.vhost;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * What a vhost connection read from its visitor and has not handled yet, and when to read more.
 * {@code AUTO_READ} is off, so a pipelined request waits here, unread beyond the one read that
 * brought it, until the exchange before it is over: a visitor cannot make the vhost hold more
 * than one read's worth of requests.
 *
 * <p>Invariant: messages wait only while the connection's {@link ConnectionPhase} does not take
 * the first of them, and no read is asked for while any waits; each one waiting is owned here
 * until handed out or released.
 *
 * <p>Threading: the connection's event loop.
 */
final class VisitorReads {
    private final ArrayDeque<Object> pending = new ArrayDeque<>(4);
    /** The bytes of the head that the decoder hands on next ({@link RequestDecoder}); owned until then. */
    private RequestDecoder.HeadBytes headBytes;
    private boolean inputClosed;

    /** A message read from the visitor (ownership passes). */
    void add(Object msg) {
        pending.add(msg);
    }

    /**
     * The next message {@code phase} takes (ownership passes), or null when none waits or the first
     * must wait longer. The bytes of a head are kept for it ({@link #takeHeadBytes}).
     */
    Object next(ConnectionPhase phase) {
        Object msg;
        while ((msg = pending.peek()) != null && phase.takes(msg)) {
            pending.poll();
            if (msg instanceof RequestDecoder.HeadBytes bytes) {
                headBytes = bytes; // its head follows at once
            } else {
                return msg;
            }
        }
        return null;
    }

    /** The bytes of the head just handed out (an {@link io.netty.handler.codec.http.HttpRequest}), or null; ownership passes. */
    RequestDecoder.HeadBytes takeHeadBytes() {
        RequestDecoder.HeadBytes raw = headBytes;
        headBytes = null;
        return raw;
    }

    boolean waiting() {
        return !pending.isEmpty();
    }

    /** The visitor shut its output down: nothing more will be read. */
    void inputClosed() {
        inputClosed = true;
    }

    boolean isInputClosed() {
        return inputClosed;
    }

    /**
     * Asks for the next read when what it brings can be handled, or held without growing: while a
     * response is awaited too, so the socket stays armed between requests (a read asked for and
     * taken back would cost two {@code epoll_ctl}s per keep-alive request) and a pipelined request
     * waits here, one read at most, which stops further reads.
     */
    void readIfWanted(ChannelHandlerContext ctx, ConnectionPhase phase, boolean upstreamWritable) {
        if (pending.isEmpty() && !inputClosed && ctx.channel().isActive() && phase.reads(upstreamWritable)) {
            ctx.read();
        }
    }

    /** What waits, for a relay that takes the connection over ({@link ProtocolSwitch}) to drain. */
    Queue<Object> unhandled() {
        return pending;
    }

    /** Releases everything waiting: the connection is closing. */
    void releaseAll() {
        ReferenceCountUtil.release(headBytes);
        headBytes = null;
        Object m;
        while ((m = pending.poll()) != null) {
            ReferenceCountUtil.release(m);
        }
    }
}
