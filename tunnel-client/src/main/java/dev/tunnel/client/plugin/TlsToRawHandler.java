package dev.tunnel.client.plugin;

import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.transport.Failures;
import dev.tunnel.runtime.BurstLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * frp's {@code tls2raw} plugin for one visitor connection: sits between the {@code SslHandler}
 * that terminates the visitor's TLS and the connection's {@link PipeRelay}; once the handshake
 * succeeds it connects to {@code localAddr} and joins the two, so the local app gets the decrypted
 * bytes. A failed handshake closes the connection (the SslHandler's 10 s handshake timeout bounds
 * a slow one); an unreachable {@code localAddr} too, logged once per burst.
 *
 * <p>Flow control: {@code AUTO_READ} is off; the SslHandler reads only while it handshakes, and
 * application bytes that came with the last handshake flight wait in the relay until the join.
 *
 * <p>Threading: one instance per connection, on its event loop.
 */
final class TlsToRawHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(TlsToRawHandler.class);
    static final String NAME = "tls2raw";

    private final InetSocketAddress localAddr;
    private final BurstLog unreachable;

    TlsToRawHandler(InetSocketAddress localAddr, BurstLog unreachable) {
        this.localAddr = localAddr;
        this.unreachable = unreachable;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read(); // the ClientHello
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (!(evt instanceof SslHandshakeCompletionEvent handshake)) {
            ctx.fireUserEventTriggered(evt);
            return;
        }
        Channel visitor = ctx.channel();
        if (!handshake.isSuccess()) {
            LOG.debug("{} tls2raw: TLS handshake failed: {}", visitor, Failures.describe(handshake.cause()));
            visitor.close();
            return;
        }
        PipeRelay front = visitor.pipeline().get(PipeRelay.class);
        ctx.pipeline().remove(this);
        Outbound.Dial dial = Outbound.connect(visitor.eventLoop(), localAddr);
        dial.future().addListener(f -> {
            if (f.isSuccess()) {
                PipeRelay.join(front, dial.relay());
                return;
            }
            unreachable.warn("tls2raw cannot reach localAddr {}:{}: {} (visitor connection closed)",
                    localAddr.getHostString(), localAddr.getPort(), Failures.describe(f.cause()));
            visitor.close();
        });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("{} tls2raw connection failed: {}", ctx.channel(), Failures.describe(cause));
        ctx.close();
    }
}
