package dev.tunnel.client;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.PrefaceDecoder.PrefaceEvent;
import dev.tunnel.protocol.ProtocolException;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.TokenProof;
import dev.tunnel.protocol.mux.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.Collection;
import javax.net.ssl.SSLException;

/**
 * The client's end of the tunnel connection. On connect it sends, in one flush, the preface,
 * the login and every proxy registration (the server handles them in order), then reports the
 * answers to its {@link SessionListener}.
 *
 * <p>Threading: runs on the connection's event loop.
 */
final class ClientControlHandler extends ChannelInboundHandlerAdapter {
    private final ClientIdentity identity;
    private final MuxSession mux;
    private final Heartbeat heartbeat;
    private final Collection<ProxyTarget> proxies;
    private final SessionListener listener;
    private final boolean tls;
    private boolean prefaceSeen;
    private boolean loggedIn;
    private String failure;

    ClientControlHandler(ClientIdentity identity, MuxSession mux, Heartbeat heartbeat, Collection<ProxyTarget> proxies,
                         SessionListener listener, boolean tls) {
        this.identity = identity;
        this.mux = mux;
        this.heartbeat = heartbeat;
        this.proxies = proxies;
        this.listener = listener;
        this.tls = tls;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        long now = System.currentTimeMillis();
        String nonce = TokenProof.newNonce();
        ctx.write(Preface.encode(ctx.alloc()));
        ctx.write(new ControlFrame(new Login(identity.version(), identity.hostname(), identity.runId(), now, nonce,
                TokenProof.compute(identity.token(), now, nonce), identity.tcpMux(), identity.poolCount(),
                mux.settings().initialWindow())));
        for (ProxyTarget proxy : proxies) {
            ctx.write(new ControlFrame(new NewProxy(proxy.id(), proxy.name(), proxy.type(), proxy.remotePort())));
        }
        ctx.flush();
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof PrefaceEvent preface) {
            prefaceSeen = true;
            if (preface.version() != Preface.VERSION) {
                fail(ctx, "server speaks protocol version " + preface.version() + ", this client speaks "
                        + Preface.VERSION + "; use matching releases");
            }
            return;
        }
        if (evt instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            fail(ctx, "TLS handshake with the server failed: " + handshake.cause().getMessage());
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
        if (message instanceof LoginResult result) {
            onLoginResult(ctx, result);
        } else if (message instanceof NewProxyResult result && loggedIn) {
            listener.proxyResult(result);
        } else if (!(message instanceof ControlMessage.Pong)) {
            throw new ProtocolException("unexpected " + message.getClass().getSimpleName() + " from the server");
        }
    }

    private void onLoginResult(ChannelHandlerContext ctx, LoginResult result) {
        if (loggedIn || !prefaceSeen) {
            throw new ProtocolException("unexpected login result");
        }
        if (!result.ok()) {
            failure = "server refused login: " + result.error();
            listener.loginRefused(result.code(), result.error());
            ctx.close();
            return;
        }
        mux.start(result.initialWindow());
        loggedIn = true;
        heartbeat.start(ctx.pipeline().context(TunnelPipeline.HEARTBEAT));
        listener.loggedIn(result.sessionId());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        String reason = failure;
        if (reason == null && !prefaceSeen) {
            reason = tls
                    ? "the server closed the connection before answering (is it a tunnel server, with TLS?)"
                    : "the server closed the connection before answering (if the server has transport.tls.force = true,"
                    + " set transport.tls.enable = true here)";
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
        } else {
            fail(ctx, cause.toString());
        }
    }

    private void fail(ChannelHandlerContext ctx, String reason) {
        if (failure == null) {
            failure = reason;
        }
        ctx.close();
    }
}
