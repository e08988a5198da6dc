package dev.tunnel.client;

import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.LoginProof;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The client's half of one login (docs/security.md): answers the server's {@link Challenge}
 * with a proof bound to the certificate this connection actually saw, and checks the server's
 * proof in the {@link LoginResult} before anything else is accepted. One instance per
 * connection; event loop only.
 */
final class LoginExchange {
    private final ClientCredentials credentials;
    private String serverNonce;
    private String clientNonce;
    private ChannelBinding seen;

    LoginExchange(ClientCredentials credentials) {
        this.credentials = credentials;
    }

    /** The binding of the server certificate of this connection, or none without TLS. */
    static ChannelBinding seenBinding(SslHandler tls) throws SSLPeerUnverifiedException {
        if (tls == null) {
            return ChannelBinding.none();
        }
        Certificate[] chain = tls.engine().getSession().getPeerCertificates();
        return ChannelBinding.of((X509Certificate) chain[0]);
    }

    /**
     * Checks the certificate pin (if configured) and builds the login.
     *
     * @return the login, or null after {@link #refusal()} explains why this server is refused
     */
    Login answer(Challenge challenge, ChannelBinding seenBinding, ClientIdentity identity, int initialWindow) {
        this.seen = seenBinding;
        this.serverNonce = challenge.serverNonce();
        if (!serverNonceAcceptable()) {
            return null;
        }
        if (pinMismatch()) {
            return null;
        }
        clientNonce = LoginProof.newNonce();
        String proof = LoginProof.client(credentials.token(), credentials.user(), serverNonce, clientNonce, seen);
        return new Login(identity.version(), identity.hostname(), identity.runId(), System.currentTimeMillis(),
                clientNonce, proof, identity.tcpMux(), identity.poolCount(), initialWindow, credentials.user(), seen.fingerprint(),
                identity.capabilities(), identity.loginOptions());
    }

    private boolean serverNonceAcceptable() {
        return LoginProof.wellFormedNonce(serverNonce);
    }

    private boolean pinMismatch() {
        ChannelBinding pin = credentials.pinnedServer();
        return pin != null && !pin.matches(seen);
    }

    /** Why {@link #answer} returned null. */
    String refusal() {
        if (!serverNonceAcceptable()) {
            return "the server sent a malformed login challenge; is it a tunnel server of the same release?";
        }
        return "server certificate " + seen.fingerprint() + " does not match transport.tls.serverFingerprint "
                + credentials.pinnedServer().fingerprint() + "; refusing to log in (someone may be intercepting TLS)";
    }

    /** The server nonce this login answered (visitor proofs are bound to it), or null before the challenge. */
    String serverNonce() {
        return serverNonce;
    }

    /** Whether a successful result carries the server's proof for this login. */
    boolean serverProven(LoginResult result) {
        return clientNonce != null && LoginProof.verifyServer(credentials.token(), credentials.user(), serverNonce,
                clientNonce, seen, result.serverProof());
    }

    /** The error for a result whose server proof is wrong. */
    String unprovenServer() {
        return "the server could not prove it knows auth.token for the certificate this client saw ("
                + describeSeen() + "): refusing it, as something may be intercepting the connection";
    }

    /** How errors name the certificate this connection saw. */
    String describeSeen() {
        return seen == null || seen.isNone() ? "no TLS" : "server certificate " + seen.fingerprint();
    }
}
