package dev.tunnel.server;

import static dev.tunnel.server.LogText.printable;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.Goodbye;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.PrefaceDecoder.PrefaceEvent;
import dev.tunnel.protocol.ProtocolException;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.server.plugin.PluginException;
import dev.tunnel.server.plugin.PluginOp;
import dev.tunnel.server.proxy.secret.SecretProxyType;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's end of one tunnel connection: checks the preface and the login, then handles
 * proxy registration. Expects, in order: the client's preface (answered with ours and a
 * {@link Challenge} at the end of that read), a {@link Login} proving the token for that challenge (checked by
 * {@link LoginAuthenticator}), then {@link NewProxy}/{@link CloseProxy} at any time. A client
 * that has not finished TLS and logged in within {@code transport.loginTimeout} is closed
 * ({@link LoginDeadline}; an address with too many failed logins, or over the handshake rate,
 * never gets this far: {@link ConnectionGate}). A proven login then goes to the server plugins
 * subscribed to Login, if any, which may refuse it or change the session's user and metas
 * ({@link LoginPlugins}); its session starts on the event loop with the fewest sessions
 * ({@link SessionPlacement}).
 *
 * <p>Threading: runs on the connection's event loop.
 */
final class ServerControlHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ServerControlHandler.class);
    private static final AtomicLong SESSION_IDS = new AtomicLong();

    private final ServerContext server;
    private final MuxSession mux;
    private final Heartbeat heartbeat;
    private final int heartbeatTimeout;
    private final ServerNonce challenge;
    private final VisitorStreamAcceptor visitors;
    private final LoginDeadline loginDeadline;
    private ClientSession session;
    /** The client's preface came in this read: greet it (preface, challenge) when the read ends. */
    private boolean greetingDue;
    private boolean refused;

    /**
     * @param mux       the session's multiplexer, put in the pipeline on a valid login
     * @param challenge this connection's challenge, shared with the work connection acceptor
     */
    ServerControlHandler(ServerContext server, MuxSession mux, Heartbeat heartbeat, int heartbeatTimeout,
                         ServerNonce challenge) {
        this(server, mux, heartbeat, heartbeatTimeout, challenge, null);
    }

    /**
     * @param visitors takes the visitor streams the client opens once it logged in; null refuses them
     */
    ServerControlHandler(ServerContext server, MuxSession mux, Heartbeat heartbeat, int heartbeatTimeout,
                         ServerNonce challenge, VisitorStreamAcceptor visitors) {
        this.visitors = visitors;
        this.server = server;
        this.mux = mux;
        this.heartbeat = heartbeat;
        this.heartbeatTimeout = heartbeatTimeout;
        this.challenge = challenge;
        this.loginDeadline = new LoginDeadline(server.loginTimeoutSeconds());
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        loginDeadline.start(ctx, () -> session != null);
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof PrefaceEvent preface) {
            loginDeadline.prefaceSeen();
            if (preface.version() != Preface.VERSION) {
                challenge.writePreface(ctx);
                log.warn("{} login refused: client speaks protocol version {}, this server {}", ctx.channel(),
                        preface.version(), Preface.VERSION);
                refuse(ctx, LoginResult.VERSION_MISMATCH, "the client speaks protocol version " + preface.version()
                        + ", this server (" + server.version() + ") speaks " + Preface.VERSION
                        + (preface.version() < Preface.VERSION ? "; upgrade the client" : "; upgrade the server"));
                return;
            }
            // At the end of this read: a pool work connection that answers a nonce issued ahead
            // sends it behind its preface, and then needs no challenge (ServerNonce).
            greetingDue = true;
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (greetingDue) {
            greetingDue = false;
            challenge.greet(ctx);
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ControlFrame frame)) {
            ReferenceCountUtil.release(msg);
            throw new ProtocolException("unexpected " + msg.getClass().getSimpleName());
        }
        ControlMessage message = frame.message();
        if (refused) {
            return; // the client pipelines its proxies behind the login; they die with the connection
        }
        if (session == null) {
            if (message instanceof ControlMessage.PakeHello) {
                log.warn("{} login refused: the client sent a PAKE hello and auth.pake = \"off\" here", ctx.channel());
                challenge.writePreface(ctx);
                refuse(ctx, LoginResult.VERSION_MISMATCH, "the PAKE login is off on this server (auth.pake = \"off\");"
                        + " the client logs in with the token login next time unless its auth.pake = \"required\"");
                return;
            }
            if (!(message instanceof Login login) || !challenge.pending()) {
                throw new ProtocolException("expected login, got " + message.getClass().getSimpleName());
            }
            onLogin(ctx, login);
        } else if (message instanceof NewProxy request) {
            session.newProxy(request, result -> ctx.writeAndFlush(new ControlFrame(result)));
        } else if (message instanceof CloseProxy close) {
            session.closeProxy(close.proxyId());
        } else if (message instanceof Goodbye goodbye) {
            // answered once every port is closed, so the client may start again at once
            session.goodbye(goodbye.reason()).addListener(f -> ctx.writeAndFlush(
                    new ControlFrame(new Goodbye("ports released"))));
        } else if (!(message instanceof ControlMessage.Pong)) {
            log.debug("{} ignoring {}", ctx.channel(), message);
        }
    }

    private void onLogin(ChannelHandlerContext ctx, Login login) {
        String nonce = challenge.take(); // one login per challenge
        boolean tls = ctx.pipeline().get(SslHandler.class) != null;
        ServerPakeHandler.Agreed pake = ServerPakeHandler.takeAgreed(ctx.channel());
        LoginAuthenticator.Verdict verdict = pake != null
                ? server.authenticator().verifyPake(login, nonce, tls, pake.user(), pake.account(), pake.secret())
                : server.authenticator().verify(login, nonce, tls);
        if (!verdict.ok()) {
            server.stats().loginFailed();
            log.warn("{} login refused: {} (client {} on {})", ctx.channel(), verdict.logReason(),
                    printable(login.clientVersion()), printable(login.hostname()));
            InetAddress address = remoteAddress(ctx);
            if (address != null && server.throttle().failed(address)) {
                log.warn("{} too many failed logins from {} within {} s: refusing it for {} s (auth.maxFailedLogins)",
                        ctx.channel(), address,
                        LoginThrottle.WINDOW_MILLIS / 1000, server.throttle().blockedFor(address) / 1000);
            }
            refuse(ctx, verdict.code(), verdict.error());
            return;
        }
        List<String> missing = Capabilities.missing(Capabilities.BASE, Set.copyOf(login.capabilities()));
        if (!missing.isEmpty()) {
            log.warn("{} login refused: client {} lacks capabilities {}", ctx.channel(),
                    printable(login.clientVersion()), missing);
            refuse(ctx, LoginResult.VERSION_MISMATCH, "client " + printable(login.clientVersion())
                    + " lacks what server " + server.version() + " needs: " + String.join(", ", missing)
                    + "; upgrade the client");
            return;
        }
        if (login.tcpMux() != server.tcpMux()) {
            log.warn("{} login refused: client transport.tcpMux = {}, server transport.tcpMux = {}", ctx.channel(),
                    login.tcpMux(), server.tcpMux());
            refuse(ctx, LoginResult.MODE_MISMATCH, "transport.tcpMux mismatch: client has " + login.tcpMux()
                    + ", server has " + server.tcpMux() + "; set the same value on both sides");
            return;
        }
        Future<LoginPlugins.Identity> asked = LoginPlugins.ask(server, ctx.channel(), login);
        if (asked.isDone()) {
            afterPlugins(ctx, login, verdict, nonce, asked);
            return;
        }
        // Nothing more is read while a Login plugin is asked (the decoder holds what follows the
        // login); transport.loginTimeout still runs, so a slow plugin cannot hold the connection longer.
        boolean autoRead = ctx.channel().config().isAutoRead();
        ctx.channel().config().setAutoRead(false);
        asked.addListener(f -> {
            if (ctx.channel().isActive() && !refused) {
                ctx.channel().config().setAutoRead(autoRead);
                afterPlugins(ctx, login, verdict, nonce, asked);
            }
        });
    }

    private void afterPlugins(ChannelHandlerContext ctx, Login login, LoginAuthenticator.Verdict verdict, String nonce,
                              Future<LoginPlugins.Identity> asked) {
        if (!asked.isSuccess()) {
            PluginException e = (PluginException) asked.cause();
            log.warn("{} login refused: {}", ctx.channel(), e.getMessage());
            refuse(ctx, LoginResult.REFUSED, e.clientMessage());
            return;
        }
        LoginPlugins.Identity identity = asked.getNow();
        SessionPlacement.placeThenStart(ctx.channel(), server.sessions(), () -> refused,
                () -> startSession(ctx, login, verdict, nonce, identity));
    }

    /**
     * The login passed every check: the session's handlers go in, the client gets its result.
     *
     * @param identity the user and metas the session goes by: the client's, or those a Login plugin gave it
     */
    private void startSession(ChannelHandlerContext ctx, Login login, LoginAuthenticator.Verdict verdict, String nonce,
                              LoginPlugins.Identity identity) {
        TunnelPipeline.addServerSession(ctx.pipeline(), mux, heartbeat, heartbeatTimeout);
        if (server.plugins().handles(PluginOp.PING)) {
            ctx.pipeline().addBefore(TunnelPipeline.MUX, TunnelPipeline.PLUGIN_PINGS, new PluginPings(server.plugins()));
        }
        try {
            mux.start(login.initialWindow());
            mux.foldOpens(login.capabilities().contains(Capabilities.OPEN_DATA));
        } catch (ProtocolException e) {
            log.warn("{} login refused: {}", ctx.channel(), e.getMessage());
            refuse(ctx, LoginResult.REFUSED, e.getMessage());
            return;
        }
        loginDeadline.cancel();
        InetAddress address = remoteAddress(ctx);
        if (address != null) {
            server.throttle().succeeded(address);
        }
        String id = Long.toString(SESSION_IDS.incrementAndGet());
        String clientId = login.options().string("clientID", "");
        SessionRegistry.ClientIdHolder holder = server.sessions().claimClientId(identity.user(), clientId,
                login.runId(), id);
        if (holder != null) {
            log.warn("{} login refused: clientID \"{}\" of user \"{}\" is already online (session {}, run id {})",
                    ctx.channel(), printable(clientId), identity.user(), holder.sessionId(), holder.runId());
            refuse(ctx, LoginResult.REFUSED, "clientID \"" + clientId + "\" is already online (as in frp: one client"
                    + " per clientID; stop the other client or give this one its own clientID)");
            return;
        }
        Credentials.Account account = verdict.account();
        session = new ClientSession(id, login, identity.user(), identity.metas(), mux, server,
                server.credentials().quotaFor(account), verdict.proofKey(), nonce);
        PluginPings pings = ctx.pipeline().get(PluginPings.class);
        if (pings != null) {
            pings.session(session);
        }
        if (visitors != null) {
            visitors.router(new VisitorRouter(session, SecretProxyType.tableOf(server.types()), server.visitorThrottle(),
                    address));
        }
        List<String> capabilities = capabilities();
        session.register();
        ctx.writeAndFlush(new ControlFrame(new LoginResult(LoginResult.OK, "", server.version(), id,
                mux.settings().initialWindow(), verdict.serverProof(), capabilities, Options.EMPTY)));
        session.start();
        server.stats().clientOnline(id, identity.user(), login.runId(), printable(login.clientVersion()),
                printable(login.hostname()), address == null ? "" : address.getHostAddress(),
                login.options().string("clientID", ""), identity.metas(), new MuxFigures(mux));
        heartbeat.start(ctx.pipeline().context(TunnelPipeline.HEARTBEAT));
        log.info("{} {} logged in from host {} with the {} (run id {}, version {}{})", ctx.channel(), session.label(),
                printable(login.hostname()), account, printable(login.runId()), printable(login.clientVersion()),
                identity.renamedFrom(login) ? ", named \"" + printable(identity.user()) + "\" by a server plugin" : "");
        // the session's frame decoder takes over: what the client sent behind its login reaches it now
        TunnelPipeline.endHandshake(ctx.pipeline());
    }

    /** What this server can do, as its {@code LOGIN_RESULT} lists it (a fresh list). */
    private List<String> capabilities() {
        List<String> capabilities = new java.util.ArrayList<>(server.types().capabilities());
        if (server.authenticator().offersPake()) {
            capabilities.add(Capabilities.PAKE_LOGIN);
        }
        return capabilities;
    }

    private static InetAddress remoteAddress(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
    }

    /**
     * Refuses the login with {@code reason}, or with frp's generic "register control error" when
     * {@code detailedErrorsToClient = false} (the code still says which kind of refusal it is; the
     * server's log has the detail).
     */
    private void refuse(ChannelHandlerContext ctx, int code, String reason) {
        refused = true;
        if (!server.detailedErrors()) {
            reason = "register control error";
        }
        ctx.writeAndFlush(new ControlFrame(new LoginResult(code, reason, server.version(), "", 0, "",
                capabilities(), Options.EMPTY)))
                .addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        // a pool-mode work connection takes this handler out (WorkConnAcceptor): no login expected
        loginDeadline.cancel();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        loginDeadline.cancel();
        if (session != null) {
            session.close();
            log.info("{} {} closed, its ports released", ctx.channel(), session.label());
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (refused || !ctx.channel().isActive()) {
            // Already closing for a reason that was logged: whatever else the peer sent is noise.
            log.debug("{} after closing: {}", ctx.channel(), cause.toString());
            ctx.close();
            return;
        }
        refused = true;
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (root instanceof NotSslRecordException) {
            log.warn("{} closing: the client did not start TLS, and transport.tls.force = true", ctx.channel());
        } else if (root instanceof SSLException) {
            log.warn("{} closing: TLS handshake failed: {}", ctx.channel(), root.getMessage());
        } else if (cause instanceof DecoderException) {
            log.warn("{} closing: {}", ctx.channel(), root.getMessage());
        } else if (cause instanceof java.io.IOException) {
            log.info("{} closing: {}", ctx.channel(), cause.getMessage());
        } else {
            log.warn("{} closing: {}", ctx.channel(), cause.toString());
        }
        ctx.close();
    }
}
