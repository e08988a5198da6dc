package dev.tunnel.client;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.PakeChallenge;
import dev.tunnel.protocol.ControlMessage.PakeHello;
import dev.tunnel.protocol.ControlMessage.PakeShare;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.auth.PakeClient;
import dev.tunnel.protocol.auth.PakeKeys;
import dev.tunnel.protocol.auth.PakeWorker;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The client's half of one login (docs/security.md), the PAKE login or the token login. Both
 * answer the server's {@link Challenge} with a proof bound to the certificate this connection
 * actually saw, and check the server's proof in the {@link LoginResult} before anything else is
 * accepted. The PAKE login first sends a {@link PakeHello} (the user), takes the server's
 * {@link PakeChallenge} (salt, {@code Y}), and sends its {@link PakeShare} ({@code X}) and the
 * login proven with the secret they agree; its two elliptic-curve multiplications run on the
 * loop, the second offered to the {@link PakeWorker} to run alongside on another core
 * ({@link PakeClient#finish}); the PBKDF2 of a salt this process has not met runs on the worker.
 * One instance per connection.
 *
 * <p>Threading: the connection's event loop; the futures it returns complete there.
 */
final class LoginExchange {
    /** On the control channel once the login is sent: what the session's further connections key their proofs with. */
    static final AttributeKey<String> PROOF_KEY = AttributeKey.valueOf(LoginExchange.class, "proofKey");

    private final ClientCredentials credentials;
    private final boolean pake;
    private final PakeWorker worker;
    private PakeClient pakeClient;
    private PakeKeys pakeKeys;
    /** The server's address, which the salt it gave is remembered under. */
    private String server;
    /** The salt of the server's PAKE challenge. */
    private String salt;
    /** The server answered the hello (a PAKE challenge or a login result). */
    private boolean helloAnswered;
    private String serverNonce;
    private String clientNonce;
    private ChannelBinding seen;

    LoginExchange(ClientCredentials credentials) {
        this(credentials, PakeWorker.shared());
    }

    LoginExchange(ClientCredentials credentials, PakeWorker worker) {
        this.credentials = credentials;
        this.pake = credentials.pake().useNext();
        this.worker = worker;
    }

    /** The binding of the server certificate of this connection, or none without TLS. */
    static ChannelBinding seenBinding(SslHandler tls) throws SSLPeerUnverifiedException {
        if (tls == null) {
            return ChannelBinding.none();
        }
        Certificate[] chain = tls.engine().getSession().getPeerCertificates();
        return ChannelBinding.of((X509Certificate) chain[0]);
    }

    /** Whether this connection logs in with the PAKE login. */
    boolean pake() {
        return pake;
    }

    /**
     * The hello to {@code server} (its address), with this login's secret scalar and {@code x·P}
     * taken: computed ahead on the worker ({@link ClientPake} starts that), else here (a fixed-base
     * multiplication); it carries {@code X} when this process logged in there before
     * ({@link PakeClient#early(String, String)}).
     */
    PakeHello hello(String server) {
        this.server = server;
        pakeClient = PakeClient.start(credentials.token(), worker.clientEphemerals().take(), worker.helper());
        String early = pakeClient.early(server, credentials.user());
        return new PakeHello(credentials.user(), pakeClient.earlySalt(), early);
    }

    /**
     * The client's share {@code X}, once {@link #agree} succeeded, to send right before the
     * login; null when the hello carried it for the server's salt.
     */
    PakeShare share() {
        return pakeClient.sentEarly(salt) ? null : new PakeShare(pakeClient.clientShare());
    }

    /**
     * Takes the server's challenge: its nonce, and the certificate this connection saw, checked
     * against the pin (if configured).
     *
     * @return false after {@link #refusal()} explains why this server is refused
     */
    boolean challenged(Challenge challenge, ChannelBinding seenBinding) {
        this.seen = seenBinding;
        this.serverNonce = challenge.serverNonce();
        return serverNonceAcceptable() && !pinMismatch();
    }

    /** The token login for a challenge taken by {@link #challenged}. */
    Login answer(ClientIdentity identity, int initialWindow) {
        clientNonce = LoginProof.newNonce();
        String proof = LoginProof.client(credentials.token(), credentials.user(), serverNonce, clientNonce, seen);
        return login(proof, identity, identity.capabilities(), initialWindow);
    }

    /**
     * The keys of the PAKE login for the server's {@code challenge} (after {@link #challenged}),
     * computed on the loop when this process met the salt before (two multiplications, well under
     * a millisecond, {@link PakeClient#finishesQuickly}), else on the worker; then {@link #share()}
     * and {@link #answer(PakeKeys, ClientIdentity, int)}. Fails with an
     * {@link IllegalArgumentException} when the server's values are invalid.
     */
    Future<PakeKeys> agree(PakeChallenge challenge, EventExecutor loop) {
        helloAnswered = true;
        clientNonce = LoginProof.newNonce();
        PakeClient client = pakeClient;
        String user = credentials.user();
        String sn = serverNonce;
        String cn = clientNonce;
        ChannelBinding binding = seen;
        salt = challenge.salt();
        Callable<PakeKeys> keys = () -> client.finish(challenge.salt(), challenge.serverShare())
                .keys(user, sn, cn, binding);
        if (!client.finishesQuickly(challenge.salt())) {
            return worker.submit(loop, keys);
        }
        try { // on the loop: the hand-over to the worker and back costs more than the computation under load
            return loop.newSucceededFuture(keys.call());
        } catch (Exception e) {
            return loop.newFailedFuture(e);
        }
    }

    /** The PAKE login proven with {@code keys}. */
    Login answer(PakeKeys keys, ClientIdentity identity, int initialWindow) {
        pakeKeys = keys;
        pakeClient.remember(server, credentials.user(), salt);
        List<String> capabilities = new ArrayList<>(identity.capabilities());
        capabilities.add(Capabilities.PAKE_LOGIN);
        return login(keys.clientProof(), identity, capabilities, initialWindow);
    }

    /** Whether the hello went out and the server's challenge is awaited. */
    boolean awaitsPakeChallenge() {
        return pakeClient != null && !helloAnswered && serverNonce != null;
    }

    /**
     * A login result arrived: the hello was answered (if one was sent), and the next login's
     * scalar can be computed without slowing this one: on the worker, asked by a task of
     * {@code loop} that runs once the result has been handled.
     */
    void resultArrived(EventExecutor loop) {
        helloAnswered = true;
        if (pakeClient != null) {
            try {
                loop.execute(() -> worker.clientEphemerals().refill());
            } catch (RejectedExecutionException e) {
                // the client is closing: no next login to compute for
            }
        }
    }

    private Login login(String proof, ClientIdentity identity, List<String> capabilities, int initialWindow) {
        return new Login(identity.version(), identity.hostname(), identity.runId(), System.currentTimeMillis(),
                clientNonce, proof, identity.tcpMux(), identity.poolCount(), initialWindow, credentials.user(),
                seen.fingerprint(), capabilities, identity.loginOptions());
    }

    /** What the session's further connections key their proofs with, once the login was sent. */
    String proofKey() {
        return pake ? pakeKeys.sessionKey() : credentials.token();
    }

    private boolean serverNonceAcceptable() {
        return LoginProof.wellFormedNonce(serverNonce);
    }

    private boolean pinMismatch() {
        ChannelBinding pin = credentials.pinnedServer();
        return pin != null && !pin.matches(seen);
    }

    /** Why {@link #challenged} returned false. */
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
        if (pake) {
            return pakeKeys != null && pakeKeys.serverProven(result.serverProof());
        }
        return clientNonce != null && LoginProof.verifyServer(credentials.token(), credentials.user(), serverNonce,
                clientNonce, seen, result.serverProof());
    }

    /**
     * After a refused result or a closed connection: whether it shows the server lacks the PAKE
     * login (it closed on the hello, or refused it without listing the PAKE login).
     *
     * @param result the refusal, or null when the connection closed without one
     */
    boolean serverLacksPake(LoginResult result) {
        if (!pake || pakeClient == null) {
            return false;
        }
        if (result == null) {
            return !helloAnswered;
        }
        return !result.capabilities().contains(Capabilities.PAKE_LOGIN);
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
