package dev.tunnel.client.plugin;

import dev.tunnel.client.config.PluginConfig;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.tls.TlsConfigException;
import dev.tunnel.tls.TlsContexts;
import dev.tunnel.tls.TlsFiles;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the plugin a {@code [proxies.plugin]} table names (validated already): the one place a
 * plugin type maps to its implementation.
 */
public final class LocalPlugins {
    private static final Logger LOG = LoggerFactory.getLogger(LocalPlugins.class);

    private LocalPlugins() {
    }

    /**
     * Starts {@code config}'s plugin; its loopback server, if it has one, runs on {@code group}.
     *
     * @throws IllegalArgumentException when the type is unknown or a file it names cannot be used
     */
    public static LocalPlugin start(PluginConfig config, EventLoopGroup group) throws InterruptedException {
        return start(config, group, HeadDeadline.DEFAULT_MILLIS);
    }

    /** As {@link #start(PluginConfig, EventLoopGroup)}, with the time a visitor has for its request head (tests). */
    static LocalPlugin start(PluginConfig config, EventLoopGroup group, long headDeadlineMillis)
            throws InterruptedException {
        return switch (config.type) {
            case "static_file" -> StaticFileServer.start(group, Transports.serverChannel(), Path.of(config.localPath),
                    config.stripPrefix, config.httpUser, config.httpPassword);
            case "unix_domain_socket" -> new UnixSocketPlugin(Path.of(config.unixPath));
            case "http_proxy" -> LoopbackServer.start(group, "http_proxy",
                    new HttpProxyInitializer(BasicAuth.of(config.httpUser, config.httpPassword), headDeadlineMillis));
            case "socks5" -> LoopbackServer.start(group, "socks5",
                    new Socks5Initializer(SocksCredentials.of(config.username, config.password), headDeadlineMillis));
            case "tls2raw" -> LoopbackServer.start(group, "tls2raw",
                    new TlsToRawInitializer(serverTls(config), address(config.localAddr)));
            case "http2http", "http2https", "https2http", "https2https" -> {
                boolean fromTls = config.type.startsWith("https");
                boolean toTls = config.type.endsWith("2https");
                HttpBridge bridge = HttpBridge.of(address(config.localAddr),
                        toTls ? TlsContexts.client(TlsFiles.NONE, false) : null, config.hostHeaderRewrite,
                        config.requestHeaders, fromTls ? "https" : null);
                yield LoopbackServer.start(group, config.type,
                        new HttpBridgeInitializer(bridge, fromTls ? serverTls(config) : null, headDeadlineMillis));
            }
            default -> throw new IllegalArgumentException("plugin type \"" + config.type + "\" is not supported");
        };
    }

    /** The certificate visitors see: {@code crtPath}/{@code keyPath}, or a self-signed one when both are empty. */
    private static SslContext serverTls(PluginConfig config) {
        if (config.crtPath.isEmpty()) {
            LOG.info("plugin {}: no crtPath/keyPath, visitors get a self-signed certificate generated now", config.type);
        }
        try {
            return TlsContexts.server(new TlsFiles(config.crtPath.isEmpty() ? null : Path.of(config.crtPath),
                    config.keyPath.isEmpty() ? null : Path.of(config.keyPath), null));
        } catch (TlsConfigException e) {
            throw new IllegalArgumentException("plugin " + config.type + ": crtPath/keyPath: " + e.getMessage(), e);
        }
    }

    /** {@code host:port} (validated already) as an address resolved when dialed. */
    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return InetSocketAddress.createUnresolved(host, Integer.parseInt(hostPort.substring(colon + 1)));
    }
}
