package dev.tunnel.protocol;

import java.util.List;

/**
 * Messages on the control stream (stream 0). Encoded by {@link ControlCodec} as a kind byte
 * followed by the record's fields in order; strings are u16-length-prefixed UTF-8.
 */
public sealed interface ControlMessage {

    /**
     * Client to server, the answer to the server's {@link Challenge}. {@code nonce} is the
     * client's nonce, {@code proof} the {@link dev.tunnel.protocol.auth.LoginProof} client proof,
     * {@code user} the client's {@code user} ("" for the shared token) and
     * {@code serverCertificate} the SHA-256 fingerprint of the certificate the client saw
     * ("" without TLS). {@code timestampMillis} is informational only.
     */
    record Login(String clientVersion, String hostname, String runId, long timestampMillis,
                 String nonce, String proof, boolean tcpMux, int poolCount, int initialWindow,
                 String user, String serverCertificate)
            implements ControlMessage {
    }

    /**
     * Server to client. {@code code == LoginResult.OK} on success, else {@code error} says why.
     * On success {@code serverProof} is the server's {@link dev.tunnel.protocol.auth.LoginProof},
     * which the client checks before it accepts anything else.
     */
    record LoginResult(int code, String error, String serverVersion, String sessionId, int initialWindow,
                       String serverProof)
            implements ControlMessage {
        public static final int OK = 0;
        public static final int AUTH_FAILED = 1;
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
     * Client to server: open a public port for proxy {@code proxyId} (0 = server picks the port).
     * A secret proxy ({@code stcp}, {@code sudp}) opens none: it carries the {@code secretKey}
     * visitors must prove (inside the tunnel's TLS, as frp sends it) and its {@code allowUsers}.
     */
    record NewProxy(int proxyId, String name, String type, int remotePort, String secretKey, List<String> allowUsers)
            implements ControlMessage {
        /** Most allowUsers entries one proxy may list. */
        public static final int MAX_ALLOW_USERS = 256;

        public NewProxy(int proxyId, String name, String type, int remotePort) {
            this(proxyId, name, type, remotePort, "", List.of());
        }

        @Override
        public String toString() {
            return "NewProxy[proxyId=" + proxyId + ", name=" + name + ", type=" + type + ", remotePort=" + remotePort
                    + ", allowUsers=" + allowUsers + "]"; // never the secret key
        }
    }

    /** Server to client: the port that was opened, or why not ({@code error} non-empty). */
    record NewProxyResult(int proxyId, String name, int remotePort, String error) implements ControlMessage {
        public boolean ok() {
            return error.isEmpty();
        }
    }

    /** Client to server: close the proxy's public port. */
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

    /** Server to client, pool mode: open {@code count} more work connections. */
    record ReqWorkConn(int count) implements ControlMessage {
    }

    /**
     * Client to server, pool mode: the first message on a new work connection, the answer to the
     * server's preface and {@link Challenge} on it. {@code nonce} is the client nonce, {@code proof}
     * is {@link dev.tunnel.protocol.auth.WorkConnProof} over the session id and both nonces;
     * {@code timestampMillis} is informational.
     */
    record NewWorkConn(String sessionId, long timestampMillis, String nonce, String proof) implements ControlMessage {
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
