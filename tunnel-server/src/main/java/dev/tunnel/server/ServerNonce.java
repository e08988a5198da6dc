package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.auth.LoginProof;
import io.netty.channel.ChannelHandlerContext;

/**
 * The server's greeting on one connection, its preface and the nonce of its one
 * {@code CHALLENGE}, shared by the handlers that may answer it: a login
 * ({@link ServerControlHandler}), or a work connection ({@link WorkConnAcceptor}) in pool mode.
 * Whichever takes the nonce first uses it; it is never
 * used twice. A work connection that proves itself with a nonce issued ahead
 * ({@link IssuedNonces}) needs no challenge: once it {@linkplain #answeredAhead says so}, none is
 * sent, and the preface goes out with the first thing written to it.
 *
 * <p>Threading: the connection's event loop.
 */
final class ServerNonce {
    private String nonce;
    private boolean prefaceWritten;
    private boolean answeredAhead;

    /** A fresh nonce for this connection's challenge. */
    String issue() {
        nonce = LoginProof.newNonce();
        return nonce;
    }

    /** The nonce, once; null if none was issued or it was taken. */
    String take() {
        String n = nonce;
        nonce = null;
        return n;
    }

    /** Whether a challenge was sent and not answered yet. */
    boolean pending() {
        return nonce != null;
    }

    /** Writes this server's preface (not flushed), unless it was written already. */
    void writePreface(ChannelHandlerContext ctx) {
        if (!prefaceWritten) {
            prefaceWritten = true;
            ctx.write(Preface.encode(ctx.alloc()));
        }
    }

    /** Sends the preface and a fresh challenge, unless the client answered an issued nonce or was greeted already. */
    void greet(ChannelHandlerContext ctx) {
        if (writeGreeting(ctx)) {
            ctx.flush();
        }
    }

    /**
     * {@link #greet} without the flush, for a caller that writes more behind it (the PAKE
     * challenge goes out in the same TLS record).
     *
     * @return whether anything was written
     */
    boolean writeGreeting(ChannelHandlerContext ctx) {
        if (answeredAhead || prefaceWritten) {
            return false;
        }
        writePreface(ctx);
        ctx.write(new ControlFrame(new Challenge(issue())));
        return true;
    }

    /**
     * The client proves this connection with a nonce issued ahead: no challenge will be sent, and
     * one already sent (its preface came in an earlier read) is void.
     */
    void answeredAhead() {
        answeredAhead = true;
        nonce = null;
    }
}
