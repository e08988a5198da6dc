package dev.tunnel.protocol.tls;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.handler.ssl.util.SelfSignedCertificate;

/** TEMPORARY stand-in until the TLS work lands. */
public final class TlsContexts {
    private TlsContexts() {
    }

    @SuppressWarnings("deprecation")
    public static SslContext server(TlsFiles files) throws Exception {
        SelfSignedCertificate cert = new SelfSignedCertificate("localhost");
        return SslContextBuilder.forServer(cert.certificate(), cert.privateKey()).build();
    }

    public static SslContext client(TlsFiles files, boolean verify) throws Exception {
        return SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).build();
    }

    public static String providerName() {
        return "stub";
    }

    public static io.netty.handler.ssl.SslHandler newClientHandler(SslContext ctx, io.netty.buffer.ByteBufAllocator alloc,
            String serverName, int port, boolean verifyHostname) {
        return ctx.newHandler(alloc, serverName, port);
    }
}
