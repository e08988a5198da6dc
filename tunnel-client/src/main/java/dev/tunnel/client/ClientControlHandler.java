package dev.tunnel.client;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.ControlMessage.PakeChallenge;
import dev.tunnel.protocol.auth.PakeKeys;
import dev.tunnel.protocol.auth.PakeMode;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.PrefaceDecoder.PrefaceEvent;
import dev.tunnel.protocol.ProtocolException;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The client's end of the tunnel connection. On connect it sends its preface (and, for the PAKE
 * login, its hello); on the server's {@link Challenge} (for the PAKE login, on the
 * {@link PakeChallenge} behind it) it sends, in one flush, the login ({@link LoginExchange}) and
 * every proxy registration (the server handles them in order). A successful result is accepted only with
 * the server's proof, and only then does the mux carry streams. Answers go to the
 * {@link SessionListener}.
 *
 * <p>Threading: runs on the connection's event loop.
 */
final class ClientControlHandler extends ChannelInboundHandlerAdapter {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ClientControlHandler.class);
    private final ClientIdentity identity;
    private final LoginExchange exchange;
    private final ClientCredentials credentials;
    private final MuxSession mux;
    private final Heartbeat heartbeat;
    private final ProxyManager proxies;
    private final SessionListener listener;
    private final boolean tls;
    private boolean prefaceSeen;
    private boolean challenged;
    private boolean loginSent;
    private boolean loggedIn;
    private String failure;
    private Set<String> serverCapabilities = Set.of();
    private String serverVersion = "";
    private final VisitorOwner visitors;
    private VisitorStreams visitorStreams;
    private final String user;

    /**
     * @param visitors chooses the session the visitors' local ports use; this one while it is logged in
     */
    ClientControlHandler(ClientIdentity identity, ClientCredentials credentials, MuxSession mux, Heartbeat heartbeat,
                         ProxyManager proxies, SessionListener listener, boolean tls,
                         VisitorOwner visitors) {
        this.visitors = visitors;
        this.user = credentials.user();
        this.identity = identity;
        this.credentials = credentials;
        this.exchange = new LoginExchange(credentials);
        this.mux = mux;
        this.heartbeat = heartbeat;
        this.proxies = proxies;
        this.listener = listener;
        this.tls = tls;
    }

    /**
     * Sends the preface and, for the PAKE login, the hello behind it (TLS queues both until its
     * handshake is done).
     */
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (exchange.pake()) {
            ctx.write(Preface.encode(ctx.alloc()));
            ctx.writeAndFlush(new ControlFrame(exchange.hello(String.valueOf(ctx.channel().remoteAddress()))));
        } else {
            ctx.writeAndFlush(Preface.encode(ctx.alloc()));
        }
        ctx.fireChannelActive();
    }

    /** Answers the challenge: the token login at once, the PAKE login once the server's PAKE challenge is in. */
    private void onChallenge(ChannelHandlerContext ctx, Challenge challenge) throws SSLPeerUnverifiedException {
        if (!prefaceSeen || challenged) {
            throw new ProtocolException("unexpected login challenge");
        }
        challenged = true;
        if (!exchange.challenged(challenge, LoginExchange.seenBinding(ctx.pipeline().get(SslHandler.class)))) {
            fail(ctx, exchange.refusal());
            return;
        }
        if (!exchange.pake()) {
            sendLogin(ctx, exchange.answer(identity, mux.settings().initialWindow()));
        }
    }

    /** The PAKE login's second step: agree on the secret, then send the client's share and the login it proves. */
    private void onPakeChallenge(ChannelHandlerContext ctx, PakeChallenge challenge) {
        if (!exchange.awaitsPakeChallenge()) {
            throw new ProtocolException("unexpected PAKE challenge");
        }
        exchange.agree(challenge, ctx.executor()).addListener(f -> {
            if (!f.isSuccess()) {
                fail(ctx, "the server's PAKE challenge is invalid: " + f.cause().getMessage());
            } else if (ctx.channel().isActive()) {
                if (exchange.share() != null) {
                    ctx.write(new ControlFrame(exchange.share()));
                }
                sendLogin(ctx, exchange.answer((PakeKeys) f.getNow(), identity, mux.settings().initialWindow()));
            }
        });
    }

    /** The login and, right behind it, every proxy registration, in one flush. */
    private void sendLogin(ChannelHandlerContext ctx, Login login) {
        loginSent = true;
        ctx.channel().attr(LoginExchange.PROOF_KEY).set(exchange.proofKey());
        ctx.write(new ControlFrame(login));
        for (NewProxy registration : proxies.beginSession(ctx.channel())) {
            ctx.write(new ControlFrame(registration));
        }
        ctx.flush();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof PrefaceEvent preface) {
            prefaceSeen = true;
            if (preface.version() != Preface.VERSION) {
                fail(ctx, "the server speaks protocol version " + preface.version() + ", this client ("
                        + identity.version() + ") speaks " + Preface.VERSION
                        + (preface.version() < Preface.VERSION ? "; upgrade the server" : "; upgrade the client"));
            }
            return;
        }
        if (evt instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            if (handshake.cause() instanceof ClosedChannelException) {
                // The server hung up during the handshake (login backoff, tls.force, not a tunnel
                // server): channelInactive says so, which is more useful than "handshake failed: null".
                return;
            }
            fail(ctx, "TLS handshake with the server failed: " + handshake.cause());
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws SSLPeerUnverifiedException {
        if (!(msg instanceof ControlFrame frame)) {
            ReferenceCountUtil.release(msg);
            throw new ProtocolException("unexpected " + msg.getClass().getSimpleName());
        }
        ControlMessage message = frame.message();
        if (message instanceof Challenge challenge) {
            onChallenge(ctx, challenge);
        } else if (message instanceof PakeChallenge challenge) {
            onPakeChallenge(ctx, challenge);
        } else if (message instanceof LoginResult result) {
            onLoginResult(ctx, result);
        } else if (message instanceof NewProxyResult result && loggedIn) {
            listener.proxyResult(explained(ctx, result));
        } else if (message instanceof ControlMessage.Goodbye && loggedIn) {
            listener.portsReleased();
        } else if (!(message instanceof ControlMessage.Pong)) {
            throw new ProtocolException("unexpected " + message.getClass().getSimpleName() + " from the server");
        }
    }

    private void onLoginResult(ChannelHandlerContext ctx, LoginResult result) {
        if (loggedIn || !prefaceSeen) {
            throw new ProtocolException("unexpected login result");
        }
        exchange.resultArrived(ctx.executor());
        if (!result.ok()) {
            failure = "server refused login: " + result.error()
                    + (loginSent ? " (this client saw " + exchange.describeSeen() + ")" : "");
            if (exchange.serverLacksPake(result)) {
                failure += "; the server lacks the PAKE login: " + fallBack();
            }
            listener.loginRefused(result.code(), result.error());
            ctx.close();
            return;
        }
        if (!exchange.serverProven(result)) {
            fail(ctx, exchange.unprovenServer());
            return;
        }
        serverCapabilities = Set.copyOf(result.capabilities());
        List<String> missing = Capabilities.missing(Capabilities.BASE, serverCapabilities);
        if (!missing.isEmpty()) {
            fail(ctx, "server " + result.serverVersion() + " lacks what client " + identity.version() + " needs: "
                    + String.join(", ", missing) + "; upgrade the server");
            return;
        }
        serverVersion = result.serverVersion();
        if (!identity.loginOptions().isEmpty() && !serverCapabilities.contains(Capabilities.METADATA)) {
            log.warn("server {} lacks capability {}: it does not keep this client's clientID and metadatas (upgrade"
                    + " the server to see them in its API)", serverVersion, Capabilities.METADATA);
        }
        mux.start(result.initialWindow());
        mux.foldOpens(serverCapabilities.contains(Capabilities.OPEN_DATA));
        loggedIn = true;
        heartbeat.start(ctx.pipeline().context(TunnelPipeline.HEARTBEAT));
        listener.loggedIn(result.sessionId());
        visitorStreams = new VisitorStreams(mux, exchange.serverNonce(), user);
        visitors.sessionUp(visitorStreams);
    }

    /**
     * A proxy that needs a capability the server does not announce (its type, or a key such as
     * {@code loadBalancer.group}) is refused here with both versions, whatever the server said: a
     * server that started it anyway (ignoring keys it does not know) is told to close it.
     */
    private NewProxyResult explained(ChannelHandlerContext ctx, NewProxyResult result) {
        ProxyTarget proxy = proxies.get(result.proxyId());
        if (proxy == null) {
            return result;
        }
        List<String> missing = Capabilities.missing(proxy.needs(), serverCapabilities);
        if (missing.isEmpty()) {
            return result;
        }
        if (result.ok()) {
            ctx.writeAndFlush(new ControlFrame(new ControlMessage.CloseProxy(proxy.id(), proxy.name())));
        }
        return new NewProxyResult(result.proxyId(), result.name(), 0, (result.ok() ? "" : result.error() + " ")
                + "(server " + serverVersion + " lacks capability " + String.join(", ", missing) + " that client "
                + identity.version() + " uses; upgrade the server)", result.details());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        proxies.sessionEnded(ctx.channel());
        if (visitorStreams != null) {
            visitors.sessionDown(visitorStreams);
        }
        String reason = failure;
        SslHandler tlsHandler = ctx.pipeline().get(SslHandler.class);
        boolean reachedServer = tlsHandler == null || tlsHandler.handshakeFuture().isSuccess();
        if (reason == null && reachedServer && exchange.serverLacksPake(null)) {
            reason = "the server closed the connection on the PAKE login (a server that predates it does so): "
                    + fallBack();
        }
        if (reason == null && !prefaceSeen) {
            reason = closedBeforeAnswering("");
        }
        if (reason == null && loggedIn) {
            reason = "connection to the server lost";
        }
        listener.disconnected(reason);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (root instanceof SSLException) {
            fail(ctx, "TLS with the server failed: " + root.getMessage()
                    + (tls ? "" : " (transport.tls.enable = false here)"));
        } else if (cause instanceof DecoderException) {
            fail(ctx, root.getMessage());
        } else if (!prefaceSeen && cause instanceof java.io.IOException) {
            fail(ctx, closedBeforeAnswering(": " + cause.getMessage()));
        } else {
            fail(ctx, cause.toString());
        }
    }

    /** The server lacks the PAKE login: the next connection falls back to the token login, unless it is required. */
    private String fallBack() {
        String what = credentials.pake().serverLacksIt();
        if (credentials.pake().mode() == PakeMode.PREFERRED) {
            listener.pakeFallback();
        }
        return what;
    }

    private String closedBeforeAnswering(String detail) {
        return tls
                ? "the server closed the connection before answering" + detail + " (is it a tunnel server, with TLS?"
                + " Is this address blocked after failed logins?)"
                : "the server closed the connection before answering" + detail + " (if the server has"
                + " transport.tls.force = true, set transport.tls.enable = true here)";
    }

    private void fail(ChannelHandlerContext ctx, String reason) {
        if (failure == null) {
            failure = reason;
        }
        ctx.close();
    }
}
