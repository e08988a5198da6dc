package dev.tunnel.client;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.JoinLane;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.PrefaceDecoder.PrefaceEvent;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.ConnectionProof;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.mux.BulkLane;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.transport.KeepAlive;
import dev.tunnel.protocol.transport.LoopMove;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a session's bulk lane (mux mode, {@code transport.tcpMuxExpressLane = true}, and a server
 * that offers {@link dev.tunnel.protocol.Capabilities#EXPRESS_LANE}): a second TCP (and TLS)
 * connection to the server, on another event loop than the session's, with the control
 * connection's local address and keepalive. It
 * answers the server's challenge on it with {@code JOIN_LANE} (a {@link ConnectionProof#LANE} proof over the
 * session id, the server's nonce of this connection, a fresh client nonce and the certificate
 * this connection saw, which must be the login's and match the pin; never the token). Right
 * after the join it becomes the session's bulk lane ({@link MuxSession#attachBulkLane}); from
 * then on losing it ends the session. A lane that fails before its join is logged, and the
 * session carries everything on its one connection.
 *
 * <p>Threading: {@link #open} on the session's event loop; the lane, and its bulk owner (the
 * streams that moved to it, with their sockets), run on another loop of the client's group, so
 * that a download's reads, TLS and writes do not delay the session's other streams.
 */
final class LaneConnector {
    private static final Logger log = LoggerFactory.getLogger(LaneConnector.class);

    private final ClientWorkConn.Settings settings;
    private final int heartbeatTimeout;
    private final int sendBufferSize;
    private final int receiveBufferSize;

    /** @param settings how to reach the server and prove the token, as work connections do */
    LaneConnector(ClientWorkConn.Settings settings, int heartbeatTimeout, int sendBufferSize, int receiveBufferSize) {
        this.settings = settings;
        this.heartbeatTimeout = heartbeatTimeout;
        this.sendBufferSize = sendBufferSize;
        this.receiveBufferSize = receiveBufferSize;
    }

    /**
     * Opens the bulk lane of {@code mux}, the logged-in {@code session} whose login was
     * proven for {@code loginBinding}.
     */
    void open(MuxSession mux, SessionKey session, ChannelBinding loginBinding) {
        mux.allowLanes();
        Bootstrap bootstrap = new Bootstrap()
                .group(LoopMove.another(mux.eventLoop()))
                .channel(Transports.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, settings.connectTimeoutMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ChannelPipeline p = ch.pipeline();
                        if (settings.tls() != null) {
                            p.addLast(TunnelPipeline.TLS, settings.tls().apply(ch));
                        }
                        TunnelPipeline.addClientLane(p, heartbeatTimeout);
                        MuxSession owner = mux.newBulkOwner();
                        p.addLast(TunnelPipeline.LANE_JOIN, new Join(mux, owner, session, loginBinding));
                        p.addLast(TunnelPipeline.BULK_MUX, owner);
                        p.addLast(TunnelPipeline.BULK_LANE, new BulkLane(mux, heartbeatTimeout));
                    }
                });
        if (sendBufferSize > 0) {
            bootstrap.option(ChannelOption.SO_SNDBUF, sendBufferSize);
        }
        if (receiveBufferSize > 0) {
            bootstrap.option(ChannelOption.SO_RCVBUF, receiveBufferSize);
        }
        KeepAlive.apply(bootstrap, settings.keepalive());
        Channel control = mux.channel();
        io.netty.channel.ChannelFuture connecting = settings.localAddress() == null
                ? bootstrap.connect(settings.server()) : bootstrap.connect(settings.server(), settings.localAddress());
        Channel lane = connecting.addListener(f -> {
            if (!f.isSuccess()) {
                log.warn("{} cannot open the express lane's second connection to {}: {}; this session carries"
                        + " everything on one connection", control, settings.server(), f.cause().getMessage());
            }
        }).channel();
        // a lane that never joined dies with the session
        control.closeFuture().addListener(f -> lane.close());
    }

    /** Answers the lane's challenge, hands the lane to the session and leaves the pipeline. */
    private final class Join extends ChannelInboundHandlerAdapter {
        private final MuxSession mux;
        private final MuxSession owner;
        private final SessionKey session;
        private final ChannelBinding loginBinding;

        Join(MuxSession mux, MuxSession owner, SessionKey session, ChannelBinding loginBinding) {
            this.mux = mux;
            this.owner = owner;
            this.session = session;
            this.loginBinding = loginBinding;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(Preface.encode(ctx.alloc()));
            ctx.fireChannelActive();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof PrefaceEvent preface && preface.version() != Preface.VERSION) {
                giveUp(ctx, "the server speaks protocol version " + preface.version());
                return;
            }
            if (evt instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
                giveUp(ctx, "TLS handshake failed: " + handshake.cause().getMessage());
                return;
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ControlFrame frame && frame.message() instanceof Challenge challenge) {
                String refusal = answer(ctx, challenge);
                if (refusal != null) {
                    giveUp(ctx, refusal);
                    return;
                }
                mux.attachBulkLane(ctx.channel(), owner);
                ctx.pipeline().remove(this);
                return;
            }
            ReferenceCountUtil.release(msg);
            giveUp(ctx, "unexpected " + msg + " from the server before the join");
        }

        /** Sends the join; null, or why this server is refused. */
        private String answer(ChannelHandlerContext ctx, Challenge challenge) {
            if (!LoginProof.wellFormedNonce(challenge.serverNonce())) {
                return "malformed challenge from the server";
            }
            ChannelBinding seen;
            try {
                seen = LoginExchange.seenBinding(ctx.pipeline().get(SslHandler.class));
            } catch (SSLPeerUnverifiedException e) {
                return "no server certificate";
            }
            ChannelBinding pin = settings.credentials().pinnedServer();
            if (!seen.matches(loginBinding) || pin != null && !pin.matches(seen)) {
                return (seen.isNone() ? "no TLS" : "server certificate " + seen.fingerprint())
                        + " is not the certificate the login was made with ("
                        + (loginBinding.isNone() ? "no TLS" : loginBinding.fingerprint()) + ")";
            }
            String nonce = LoginProof.newNonce();
            String proof = ConnectionProof.LANE.compute(session.key(), settings.credentials().user(), session.id(),
                    challenge.serverNonce(), nonce, seen);
            ctx.writeAndFlush(new ControlFrame(new JoinLane(session.id(), System.currentTimeMillis(), nonce, proof)));
            return null;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
            giveUp(ctx, root.toString());
        }

        private void giveUp(ChannelHandlerContext ctx, String reason) {
            log.warn("{} express lane not joined: {}; this session carries everything on one connection",
                    mux.channel(), reason);
            ctx.close();
        }
    }
}
