package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.Goodbye;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.PrefaceDecoder.PrefaceEvent;
import dev.tunnel.protocol.ProtocolException;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.TokenProof;
import dev.tunnel.protocol.mux.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's end of one tunnel connection: checks the preface and the login, then handles
 * proxy registration. Expects, in order: the client's preface, a {@link Login}, then
 * {@link NewProxy}/{@link CloseProxy} at any time. A client that has not logged in within the
 * login timeout is closed.
 *
 * <p>Threading: runs on the connection's event loop.
 */
final class ServerControlHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ServerControlHandler.class);
    private static final AtomicLong SESSION_IDS = new AtomicLong();

    private final ServerContext server;
    private final MuxSession mux;
    private final Heartbeat heartbeat;
    private ClientSession session;
    private boolean prefaceSeen;
    private ScheduledFuture<?> loginTimeout;

    ServerControlHandler(ServerContext server, MuxSession mux, Heartbeat heartbeat) {
        this.server = server;
        this.mux = mux;
        this.heartbeat = heartbeat;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        loginTimeout = ctx.executor().schedule(() -> {
            if (session == null && ctx.channel().isActive()) {
                log.warn("{} no login within {} s: closing", ctx.channel(), server.loginTimeoutSeconds());
                ctx.close();
            }
        }, server.loginTimeoutSeconds(), TimeUnit.SECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof PrefaceEvent preface) {
            prefaceSeen = true;
            ctx.write(Preface.encode(ctx.alloc()));
            if (preface.version() != Preface.VERSION) {
                refuse(ctx, LoginResult.VERSION_MISMATCH, "protocol version " + preface.version()
                        + " is not supported by this server (it speaks " + Preface.VERSION + "); use matching releases");
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ControlFrame frame)) {
            ReferenceCountUtil.release(msg);
            throw new ProtocolException("unexpected " + msg.getClass().getSimpleName());
        }
        ControlMessage message = frame.message();
        if (session == null) {
            if (!(message instanceof Login login) || !prefaceSeen) {
                throw new ProtocolException("expected login, got " + message.getClass().getSimpleName());
            }
            onLogin(ctx, login);
        } else if (message instanceof NewProxy request) {
            session.newProxy(request, result -> ctx.writeAndFlush(new ControlFrame(result)));
        } else if (message instanceof CloseProxy close) {
            session.closeProxy(close.proxyId());
        } else if (message instanceof Goodbye goodbye) {
            session.goodbye(goodbye.reason());
        } else if (!(message instanceof ControlMessage.Pong)) {
            log.debug("{} ignoring {}", ctx.channel(), message);
        }
    }

    private void onLogin(ChannelHandlerContext ctx, Login login) {
        if (!TokenProof.verify(server.token(), login.timestampMillis(), login.nonce(), login.proof())) {
            log.warn("{} login refused: wrong auth.token (client {} on {})", ctx.channel(), login.clientVersion(),
                    login.hostname());
            refuse(ctx, LoginResult.AUTH_FAILED, "authorization failed: the server rejected auth.token");
            return;
        }
        if (login.tcpMux() != server.tcpMux()) {
            log.warn("{} login refused: client transport.tcpMux = {}, server transport.tcpMux = {}", ctx.channel(),
                    login.tcpMux(), server.tcpMux());
            refuse(ctx, LoginResult.MODE_MISMATCH, "transport.tcpMux mismatch: client has " + login.tcpMux()
                    + ", server has " + server.tcpMux() + "; set the same value on both sides");
            return;
        }
        try {
            mux.start(login.initialWindow());
        } catch (ProtocolException e) {
            refuse(ctx, LoginResult.REFUSED, e.getMessage());
            return;
        }
        loginTimeout.cancel(false);
        String id = Long.toString(SESSION_IDS.incrementAndGet());
        session = new ClientSession(id, login, mux, server);
        ctx.writeAndFlush(new ControlFrame(new LoginResult(LoginResult.OK, "", server.version(), id,
                mux.settings().initialWindow())));
        session.start();
        heartbeat.start(ctx.pipeline().context(TunnelPipeline.HEARTBEAT));
        log.info("{} client {} logged in (session {}, version {})", ctx.channel(), login.hostname(), id,
                login.clientVersion());
    }

    private void refuse(ChannelHandlerContext ctx, int code, String reason) {
        ctx.writeAndFlush(new ControlFrame(new LoginResult(code, reason, server.version(), "", 0)))
                .addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        // a pool-mode work connection takes this handler out (WorkConnAcceptor): no login expected
        if (loginTimeout != null) {
            loginTimeout.cancel(false);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (loginTimeout != null) {
            loginTimeout.cancel(false);
        }
        if (session != null) {
            session.close();
            log.info("{} client session {} closed, its ports released", ctx.channel(), session.id());
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (root instanceof NotSslRecordException) {
            log.warn("{} closing: the client did not start TLS, and transport.tls.force = true", ctx.channel());
        } else if (root instanceof SSLException) {
            log.warn("{} closing: TLS handshake failed: {}", ctx.channel(), root.getMessage());
        } else if (cause instanceof DecoderException) {
            log.warn("{} closing: {}", ctx.channel(), root.getMessage());
        } else {
            log.warn("{} closing: {}", ctx.channel(), cause.toString());
        }
        ctx.close();
    }
}
