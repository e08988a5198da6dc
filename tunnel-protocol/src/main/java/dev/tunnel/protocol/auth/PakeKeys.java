package dev.tunnel.protocol.auth;

/**
 * The outcome of a PAKE login for one transcript ({@link PakeSecret#keys}): the client's proof
 * (sent in {@code LOGIN}), the server's (sent in {@code LOGIN_RESULT}) and the session key that
 * keys the session's further connection proofs ({@link ConnectionProof}) in place of the token.
 * All three are hex. Secret: {@link #toString()} leaves them out. Immutable.
 */
public record PakeKeys(String clientProof, String serverProof, String sessionKey) {

    /** Constant-time check of the client's proof. */
    public boolean clientProven(String proof) {
        return LoginProof.constantTimeEquals(clientProof, proof);
    }

    /** Constant-time check of the server's proof. */
    public boolean serverProven(String proof) {
        return LoginProof.constantTimeEquals(serverProof, proof);
    }

    @Override
    public String toString() {
        return "PakeKeys[hidden]";
    }
}
