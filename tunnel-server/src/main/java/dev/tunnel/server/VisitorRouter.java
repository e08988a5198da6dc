package dev.tunnel.server;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.auth.VisitorProof;
import dev.tunnel.protocol.visitor.StreamSplice;
import dev.tunnel.protocol.visitor.VisitorGate;
import dev.tunnel.protocol.visitor.VisitorHello;
import dev.tunnel.server.proxy.secret.SecretProxies;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides where the streams a visitor's session opens go: checks the address's backoff, finds
 * the secret proxy, verifies the proof over its secret key ({@link VisitorProof}, bound to this
 * session's login nonce and the stream id) and the provider's {@code allowUsers}, then opens a
 * stream on the provider's session and splices the two ({@link StreamSplice}). A refusal resets
 * the visitor's stream with a code that says why, and is logged here; nothing reaches the
 * provider.
 *
 * <p>Threading: {@link #route} runs on the visitor session's loop; the provider's stream is
 * opened on the provider session's loop.
 */
final class VisitorRouter implements VisitorGate.Router {
    private static final Logger log = LoggerFactory.getLogger(VisitorRouter.class);

    private final ClientSession visitor;
    private final SecretProxies secrets;
    private final LoginThrottle throttle;
    private final InetAddress address;

    /** @param secrets the secret proxies of the server, or null when it carries none */
    VisitorRouter(ClientSession visitor, SecretProxies secrets, LoginThrottle throttle, InetAddress address) {
        this.visitor = visitor;
        this.secrets = secrets;
        this.throttle = throttle;
        this.address = address;
    }

    io.netty.channel.EventLoop eventLoop() {
        return visitor.link().eventLoop();
    }

    @Override
    public void route(VisitorHello hello, StreamSplice.Side side) {
        String serverUser = hello.serverUser().isEmpty() ? visitor.user() : hello.serverUser();
        String target = hello.type() + " proxy [" + SecretProxies.qualify(serverUser, hello.serverName()) + "]";
        String who = "visitor " + (visitor.user().isEmpty() ? "" : "of user " + visitor.user() + " ")
                + "(session " + visitor.id() + ", " + side.stream() + ")";
        long blocked = address == null ? 0 : throttle.blockedFor(address);
        if (blocked > 0) {
            refuse(side, ResetCode.VISITOR_THROTTLED, "{} to {} refused: {} is blocked for {} s more after wrong secret keys",
                    who, target, address, (blocked + 999) / 1000);
            return;
        }
        SecretProxies.Provider provider = secrets == null ? null : secrets.find(serverUser, hello.serverName());
        if (provider == null || !provider.type().equals(hello.type())) {
            refuse(side, ResetCode.VISITOR_NO_SUCH_PROXY, "{} refused: no {} is registered", who, target);
            return;
        }
        if (address != null && !provider.ref().admitsVisitor(new InetSocketAddress(address, 0), who)) {
            StreamSplice.refuse(side, ResetCode.VISITOR_ADDRESS_REFUSED); // counted and logged by the rules
            return;
        }
        boolean proven = VisitorProof.verify(provider.secretKey(), hello.type(), visitor.loginUser(), hello.serverUser(),
                hello.serverName(), visitor.loginNonce(), side.stream().id(), hello.nonce(), hello.proof());
        if (!proven) {
            refuse(side, ResetCode.VISITOR_AUTH_FAILED, "{} to {} refused: wrong secretKey", who, target);
            if (address != null && throttle.failed(address)) {
                log.warn("too many wrong visitor secret keys from {} within {} s: refusing its visitors for {} s"
                        + " (auth.maxFailedLogins)", address, LoginThrottle.WINDOW_MILLIS / 1000,
                        throttle.blockedFor(address) / 1000);
            }
            return;
        }
        if (!provider.allows(visitor.user())) {
            refuse(side, ResetCode.VISITOR_NOT_ALLOWED, "{} to {} refused: user \"{}\" is not in its allowUsers {}",
                    who, target, visitor.user(), provider.allowUsers().isEmpty() ? "(only its own user)" : provider.allowUsers());
            return;
        }
        if (address != null) {
            throttle.succeeded(address);
        }
        String source = "visitor " + (visitor.user().isEmpty() ? "" : visitor.user() + " ") + "session " + visitor.id();
        secrets.connect(provider, source, side, who, visitor.mux().channel());
    }

    private static void refuse(StreamSplice.Side side, int code, String format, Object... args) {
        log.warn(format, args);
        StreamSplice.refuse(side, code);
    }
}
