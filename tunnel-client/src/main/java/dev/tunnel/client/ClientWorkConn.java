package dev.tunnel.client;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.NewWorkConn;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.StartWorkConn;
import dev.tunnel.protocol.FrameDecoder;
import dev.tunnel.protocol.FrameEncoder;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.PrefaceDecoder;
import dev.tunnel.protocol.PrefaceDecoder.PrefaceEvent;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.TokenProof;
import dev.tunnel.protocol.auth.WorkConnProof;
import dev.tunnel.protocol.relay.PipeRelay;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's end of one work connection (pool mode) while it waits in the server's pool:
 * sends the preface and {@code NEW_WORK_CONN} (a proof over the session id, never the token),
 * then sends nothing and waits for {@code START_WORK_CONN}. The server's keepalive pings are
 * read and dropped. On start it removes the codec, so the bytes behind the start message reach
 * a {@link PipeRelay}, and hands the connection to the {@link WorkConnector}.
 *
 * <p>Threading: runs on the connection's event loop (the control connection's).
 */
final class ClientWorkConn extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ClientWorkConn.class);
    private static final FrameEncoder ENCODER = new FrameEncoder();

    /** How to reach and authenticate to the server. */
    record Settings(InetSocketAddress server, Function<SocketChannel, SslHandler> tls, String token,
                    int connectTimeoutMillis) {
    }

    /** Called when the server starts a work connection; the codec is gone, {@code workEnd} holds early bytes. */
    @FunctionalInterface
    interface Starter {
        void start(Channel work, PipeRelay workEnd, int proxyId, String source);
    }

    private final String token;
    private final String sessionId;
    private final Starter starter;

    private ClientWorkConn(String token, String sessionId, Starter starter) {
        this.token = token;
        this.sessionId = sessionId;
        this.starter = starter;
    }

    /** The whole pipeline of a client work connection; see {@link TunnelPipeline}. */
    static void initPipeline(SocketChannel ch, Settings settings, String sessionId, Starter starter) {
        ChannelPipeline p = ch.pipeline();
        if (settings.tls() != null) {
            p.addLast(TunnelPipeline.TLS, settings.tls().apply(ch));
        }
        p.addLast(TunnelPipeline.PREFACE, new PrefaceDecoder());
        p.addLast(TunnelPipeline.FRAME_DECODER, new FrameDecoder());
        p.addLast(TunnelPipeline.FRAME_ENCODER, ENCODER);
        p.addLast(TunnelPipeline.WORK_CONN, new ClientWorkConn(settings.token(), sessionId, starter));
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        long now = System.currentTimeMillis();
        String nonce = TokenProof.newNonce();
        ctx.write(Preface.encode(ctx.alloc()));
        ctx.writeAndFlush(new ControlFrame(new NewWorkConn(sessionId, now, nonce,
                WorkConnProof.compute(token, sessionId, now, nonce))));
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof PrefaceEvent preface && preface.version() != Preface.VERSION) {
            log.warn("{} work connection: server speaks protocol version {}: closing", ctx.channel(), preface.version());
            ctx.close();
            return;
        }
        if (evt instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            log.debug("{} work connection: TLS handshake failed: {}", ctx.channel(), handshake.cause().getMessage());
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ControlFrame frame && frame.message() instanceof Ping) {
            return;
        }
        if (msg instanceof ControlFrame frame && frame.message() instanceof StartWorkConn start) {
            Channel ch = ctx.channel();
            ch.config().setAutoRead(false);
            PipeRelay workEnd = PipeRelay.replace(ch, TunnelPipeline.WORK_CONN);
            ch.pipeline().remove(TunnelPipeline.FRAME_ENCODER);
            ch.pipeline().remove(TunnelPipeline.FRAME_DECODER); // hands the bytes behind START to workEnd
            starter.start(ch, workEnd, start.proxyId(), start.source());
            return;
        }
        ReferenceCountUtil.release(msg);
        log.warn("{} work connection: unexpected {} from the server: closing", ctx.channel(), msg);
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        log.debug("{} work connection closed: {}", ctx.channel(), root.toString());
        ctx.close();
    }
}
