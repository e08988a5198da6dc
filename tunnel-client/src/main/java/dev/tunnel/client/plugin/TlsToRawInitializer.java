package dev.tunnel.client.plugin;

import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.runtime.BurstLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import org.slf4j.LoggerFactory;

/**
 * Assembles one {@code tls2raw} connection's pipeline and nothing else:
 * {@code tls -> tls2raw -> relay}.
 */
final class TlsToRawInitializer extends ChannelInitializer<Channel> {
    static final String TLS = "tls";

    private final SslContext tls;
    private final InetSocketAddress localAddr;
    private final BurstLog unreachable = new BurstLog(LoggerFactory.getLogger(TlsToRawHandler.class));

    TlsToRawInitializer(SslContext tls, InetSocketAddress localAddr) {
        this.tls = tls;
        this.localAddr = localAddr;
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.pipeline().addLast(TLS, tls.newHandler(ch.alloc()));
        ch.pipeline().addLast(TlsToRawHandler.NAME, new TlsToRawHandler(localAddr, unreachable));
        PipeRelay.attach(ch);
    }
}
