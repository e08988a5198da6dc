package dev.tunnel.server;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.PakeWorker;
import dev.tunnel.protocol.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxSettings;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import java.util.concurrent.TimeUnit;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.OptionalSslHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;

/**
 * Builds the server side of a tunnel connection; see {@link TunnelPipeline} for the picture.
 * A connection its {@link ConnectionGate} refuses gets no pipeline: it is reset at once.
 */
final class ServerChannelInitializer extends ChannelInitializer<SocketChannel> {
    private final ServerContext context;
    private final SslContext sslContext;
    private final boolean tlsForce;
    private final MuxSettings muxSettings;
    private final int heartbeatTimeout;
    private final int keepaliveInterval;
    private final ConnectionGate gate;

    ServerChannelInitializer(ServerContext context, SslContext sslContext, boolean tlsForce, MuxSettings muxSettings,
                             int heartbeatTimeout, int keepaliveInterval, ConnectionGate gate) {
        this.gate = gate;
        this.context = context;
        this.sslContext = sslContext;
        this.tlsForce = tlsForce;
        this.muxSettings = muxSettings;
        this.heartbeatTimeout = heartbeatTimeout;
        this.keepaliveInterval = keepaliveInterval;
        if (context.authenticator().offersPake()) {
            context.credentials().ephemerals().fillAll(); // the first logins then find their scalars and V ready
        }
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        long wait = gate.admit(ch);
        if (wait == ConnectionGate.REFUSED) {
            return;
        }
        if (wait > 0) {
            // Its turn comes later: nothing is read meanwhile (the ClientHello waits in the socket),
            // then the pipeline is built and starts as if the connection had just opened.
            ch.config().setAutoRead(false);
            ch.eventLoop().schedule(() -> {
                if (ch.isActive()) {
                    build(ch);
                    ch.pipeline().fireChannelActive();
                    ch.config().setAutoRead(true);
                }
            }, wait, TimeUnit.NANOSECONDS);
            return;
        }
        build(ch);
    }

    private void build(SocketChannel ch) {
        ChannelPipeline p = ch.pipeline();
        if (tlsForce) {
            p.addLast(TunnelPipeline.TLS, newSslHandler(sslContext, ch.alloc()));
        } else {
            p.addLast(TunnelPipeline.TLS_DETECTOR, new TlsDetector(sslContext));
        }
        TunnelPipeline.addServerHandshake(p);
        ServerNonce nonce = new ServerNonce();
        if (context.authenticator().offersPake()) {
            p.addLast(TunnelPipeline.PAKE, new ServerPakeHandler(context.credentials(), nonce, PakeWorker.shared()));
        }
        if (!context.tcpMux()) {
            p.addLast(TunnelPipeline.WORK_CONN_ACCEPTOR, new WorkConnAcceptor(context, nonce));
        }
        VisitorStreamAcceptor visitors = new VisitorStreamAcceptor();
        MuxSession mux = new MuxSession(true, muxSettings, visitors);
        Heartbeat heartbeat = new Heartbeat(mux, keepaliveInterval, heartbeatTimeout);
        p.addLast(TunnelPipeline.CONTROL, new ServerControlHandler(context, mux, heartbeat, heartbeatTimeout, nonce,
                visitors));
    }

    /**
     * The handshake must fit in transport.loginTimeout, whose timer (in the control handler) also
     * covers the login after it and logs which stage was stuck; SslHandler's own timer would close
     * the connection without a word, so it is off.
     */
    private static SslHandler newSslHandler(SslContext sslContext, io.netty.buffer.ByteBufAllocator alloc) {
        SslHandler handler = sslContext.newHandler(alloc);
        handler.setHandshakeTimeoutMillis(0);
        return handler;
    }

    /** Installs TLS for a client whose first byte is a TLS record, and nothing otherwise. */
    private static final class TlsDetector extends OptionalSslHandler {
        TlsDetector(SslContext sslContext) {
            super(sslContext);
        }

        @Override
        protected String newSslHandlerName() {
            return TunnelPipeline.TLS;
        }

        @Override
        protected SslHandler newSslHandler(ChannelHandlerContext ctx, SslContext sslContext) {
            return ServerChannelInitializer.newSslHandler(sslContext, ctx.alloc());
        }
    }
}
