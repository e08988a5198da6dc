package dev.tunnel.web;

import dev.tunnel.runtime.BindFailures;
import dev.tunnel.tls.TlsContexts;
import dev.tunnel.tls.TlsFiles;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.handler.ssl.SslContext;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP(S) server behind {@code webServer.*}: the server's dashboard, REST API and metrics,
 * or the client's admin API. It listens on the tunnel's own event loops (a few requests a
 * minute do not need threads of their own); state-changing calls run on one extra thread,
 * started with the server.
 */
public final class WebServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebServer.class);
    /** Largest request body accepted (a config file for {@code PUT /api/config}). */
    public static final int MAX_BODY_BYTES = 1024 * 1024;

    private final Channel listener;
    private final ExecutorService blocking;

    private WebServer(Channel listener, ExecutorService blocking) {
        this.listener = listener;
        this.blocking = blocking;
    }

    /**
     * Binds {@code settings.addr():settings.port()}; throws with the address when it cannot, and
     * refuses an address beyond loopback without both credentials ({@link WebSettings#refusal}),
     * judged on the address the name resolves to, the one bound.
     *
     * @param group         the loops to run on (the tunnel's own)
     * @param channelClass  the transport's server channel (epoll, io_uring or NIO, as the tunnel uses)
     * @param what          how log lines name this server ("dashboard", "admin API")
     */
    public static WebServer start(WebSettings settings, Routes routes, EventLoopGroup group,
                                  Class<? extends ServerChannel> channelClass, String what) {
        InetSocketAddress address = new InetSocketAddress(settings.addr(), settings.port());
        String refusal = settings.refusal("webServer", address.getAddress() != null && address.getAddress().isLoopbackAddress());
        if (refusal != null) {
            throw new IllegalStateException("refusing to start " + what + ": webServer.addr " + refusal);
        }
        SslContext ssl = settings.tls()
                ? TlsContexts.server(new TlsFiles(Path.of(settings.certFile()), Path.of(settings.keyFile()), null))
                : null;
        BasicAuth auth = settings.authRequired() ? new BasicAuth(settings.user(), settings.password()) : null;
        ExecutorService blocking = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "web-calls");
            t.setDaemon(true);
            return t;
        });
        try {
            Channel listener = new ServerBootstrap()
                    .group(group)
                    .channel(channelClass)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new WebInitializer(ssl, routes, auth, blocking))
                    .bind(address).syncUninterruptibly().channel();
            InetSocketAddress bound = (InetSocketAddress) listener.localAddress();
            String host = bound.getAddress() instanceof Inet6Address ? "[" + bound.getHostString() + "]" : bound.getHostString();
            log.info("{} listening on {}://{}:{}/{}", what, ssl == null ? "http" : "https", host, bound.getPort(),
                    auth == null ? " without credentials (webServer.user/password are empty)" : "");
            return new WebServer(listener, blocking);
        } catch (Exception e) { // bind's IOException too: syncUninterruptibly throws it unchecked
            blocking.shutdownNow();
            String reason = BindFailures.addressInUse(e) ? "address in use" : e.getMessage();
            throw new IllegalStateException("failed to bind " + what + " on [" + settings.addr() + ":" + settings.port()
                    + "] (webServer.addr, webServer.port): " + reason, e);
        }
    }

    /** The port bound (for {@code webServer.port = 0} in tests). */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        blocking.shutdown();
        try {
            blocking.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
