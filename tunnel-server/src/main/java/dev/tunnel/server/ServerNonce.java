package dev.tunnel.server;

import dev.tunnel.protocol.auth.LoginProof;

/**
 * The nonce of the one {@code CHALLENGE} the server sends on a connection, shared by the two
 * handlers that may answer it: a login ({@link ServerControlHandler}) or, in pool mode, a work
 * connection ({@link WorkConnAcceptor}). Whichever takes it first uses it; it is never used twice.
 *
 * <p>Threading: the connection's event loop.
 */
final class ServerNonce {
    private String nonce;

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
}
