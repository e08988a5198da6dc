package dev.tunnel.protocol;

import java.util.List;

/**
 * Messages on the control stream (stream 0). Encoded by {@link ControlCodec} as a kind byte
 * followed by the record's fields in order; strings are u16-length-prefixed UTF-8.
 *
 * <p>How they grow: a new setting goes into an {@link Options} map, a new feature gets a
 * {@link Capabilities} name that both sides list at login, and a new message gets a new kind
 * that is sent only to a peer that listed the capability for it. Fields are never inserted.
 */
public sealed interface ControlMessage {

    /**
     * Client to server, the answer to the server's {@link Challenge}. {@code nonce} is the
     * client's nonce, {@code proof} the {@link dev.tunnel.protocol.auth.LoginProof} client proof,
     * {@code user} the client's {@code user} ("" for the shared token) and
     * {@code serverCertificate} the SHA-256 fingerprint of the certificate the client saw
     * ("" without TLS). {@code timestampMillis} is informational only. {@code capabilities} are
     * what the client can do ({@link Capabilities}); {@code options} carry login extensions
     * (frp's {@code metadatas.*}, for instance).
     */
    record Login(String clientVersion, String hostname, String runId, long timestampMillis,
                 String nonce, String proof, boolean tcpMux, int poolCount, int initialWindow,
                 String user, String serverCertificate, List<String> capabilities, Options options)
            implements ControlMessage {
        public Login {
            capabilities = List.copyOf(capabilities);
        }
    }

    /**
     * Server to client. {@code code == LoginResult.OK} on success, else {@code error} says why.
     * On success {@code serverProof} is the server's {@link dev.tunnel.protocol.auth.LoginProof},
     * which the client checks before it accepts anything else. {@code capabilities} are what the
     * server can do ({@link Capabilities}); a refusal for a missing capability
     * ({@link #VERSION_MISMATCH}) names both versions and what is missing in {@code error}.
     */
    record LoginResult(int code, String error, String serverVersion, String sessionId, int initialWindow,
                       String serverProof, List<String> capabilities, Options options)
            implements ControlMessage {
        public LoginResult {
            capabilities = List.copyOf(capabilities);
        }

        public static final int OK = 0;
        public static final int AUTH_FAILED = 1;
        /** The peers lack a protocol version or capability one of them needs. */
        public static final int VERSION_MISMATCH = 2;
        public static final int MODE_MISMATCH = 3;
        public static final int REFUSED = 4;
        /** Too many failed logins from the client's address; retry later. */
        public static final int THROTTLED = 5;

        public boolean ok() {
            return code == OK;
        }
    }

    /**
     * Client to server: start proxy {@code proxyId} of {@code type} with the type's settings in
     * {@code options} (for {@code tcp}: {@code remotePort}, 0 or absent = the server picks). The
     * id is the client's, stable for the proxy's life; the same id again after a
     * {@link CloseProxy} starts it anew (a changed proxy).
     */
    record NewProxy(int proxyId, String name, String type, Options options) implements ControlMessage {
    }

    /**
     * Server to client: the proxy runs ({@code error} empty) or why not. {@code remotePort} is the
     * public port opened, 0 for a type without one; {@code details} carry what else the type
     * reports (for example the URLs it answers on).
     */
    record NewProxyResult(int proxyId, String name, int remotePort, String error, Options details)
            implements ControlMessage {
        public boolean ok() {
            return error.isEmpty();
        }
    }

    /**
     * Client to server: stop proxy {@code proxyId}: the server closes its public side and the
     * connections it carries. No answer; an unknown id is ignored.
     */
    record CloseProxy(int proxyId, String name) implements ControlMessage {
    }

    /** Heartbeat; the receiver answers with a {@link Pong} carrying the same payload. */
    record Ping(long payload) implements ControlMessage {
    }

    /** Answer to a {@link Ping}. */
    record Pong(long payload) implements ControlMessage {
    }

    /** Server to client, right after its preface: the fresh nonce the login proof must cover. */
    record Challenge(String serverNonce) implements ControlMessage {
    }

    /**
     * Client to server, the PAKE login's first message ({@link Capabilities#PAKE_LOGIN}), sent right
     * behind the client's preface: the user it logs in as ("" for the shared token) and, when the
     * client knows the salt this server gave it last time, that salt (base64) and its SPAKE2+ share
     * {@code X} for it ({@code shareP}, base64 of the uncompressed point); both "" otherwise. A
     * server whose salt for the user is that one takes the share and expects no {@link PakeShare}.
     * A server without the PAKE login closes the connection on it (an unknown kind), and the
     * client logs in with the token login next time.
     */
    record PakeHello(String user, String salt, String clientShare) implements ControlMessage {
        /** A hello without an early share. */
        public PakeHello(String user) {
            this(user, "", "");
        }
    }

    /**
     * Server to client, the answer to {@link PakeHello} (after the connection's {@link Challenge}):
     * the account's salt (base64) and the server's SPAKE2+ share {@code Y} (RFC 9383's
     * {@code shareV}, base64 of the uncompressed point). The client then sends {@link PakeShare} and
     * its {@link Login} with the PAKE proof ({@link dev.tunnel.protocol.auth.PakeSecret}).
     */
    record PakeChallenge(String salt, String serverShare) implements ControlMessage {
    }

    /**
     * Client to server, right before the {@link Login} of a PAKE login (in the same flush) unless
     * its hello carried the share for the salt of the {@link PakeChallenge}: the client's SPAKE2+
     * share {@code X} (RFC 9383's {@code shareP}, base64 of the uncompressed point).
     */
    record PakeShare(String clientShare) implements ControlMessage {
    }

    /**
     * Server to client, pool mode: open {@code count} more work connections. With
     * {@link Capabilities#ISSUED_NONCES}, {@code nonces} holds one server nonce per connection
     * ({@code count} of them): each such connection proves itself at once with its nonce, without
     * waiting for a {@link Challenge}. Empty otherwise.
     */
    record ReqWorkConn(int count, List<String> nonces) implements ControlMessage {
        public ReqWorkConn {
            nonces = List.copyOf(nonces);
            if (!nonces.isEmpty() && nonces.size() != count) {
                throw new IllegalArgumentException(count + " work connections asked for with " + nonces.size()
                        + " nonces (expected: none or one each)");
            }
        }

        /** {@code count} connections, each to answer the challenge of its own connection. */
        public ReqWorkConn(int count) {
            this(count, List.of());
        }

        /** One connection per nonce, each proving itself with its nonce at once. */
        public static ReqWorkConn issued(List<String> nonces) {
            return new ReqWorkConn(nonces.size(), nonces);
        }
    }

    /**
     * Client to server, pool mode: the first message on a new work connection, the answer to the
     * server's preface and {@link Challenge} on it. {@code nonce} is the client nonce, {@code proof}
     * is {@link dev.tunnel.protocol.auth.ConnectionProof#WORK_CONN} over the session id and both nonces;
     * {@code timestampMillis} is informational. {@code issuedNonce}, when not empty, is a server
     * nonce handed out ahead in {@link ReqWorkConn#nonces()}: the proof covers it instead of this
     * connection's challenge, and the message is sent without waiting for one.
     */
    record NewWorkConn(String sessionId, long timestampMillis, String nonce, String proof, String issuedNonce)
            implements ControlMessage {
        /** The answer to this connection's own challenge. */
        public NewWorkConn(String sessionId, long timestampMillis, String nonce, String proof) {
            this(sessionId, timestampMillis, nonce, proof, "");
        }

        /** Whether the proof covers a nonce issued ahead on the control connection. */
        public boolean answersIssuedNonce() {
            return !issuedNonce.isEmpty();
        }
    }

    /**
     * Server to client on a pooled work connection: a public connection for proxy
     * {@code proxyId} from {@code source} rides this connection. The frame is the last one on it:
     * every byte after it, both ways, belongs to the public connection.
     */
    record StartWorkConn(int proxyId, String source) implements ControlMessage {
    }

    /**
     * Either side, on the control connection: this side is shutting down and opens nothing new;
     * the server releases the client's ports at once. Connections in flight may still finish.
     */
    record Goodbye(String reason) implements ControlMessage {
    }
}
