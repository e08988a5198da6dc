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
     * @param proxyName the proxy it serves, as log lines name it
     *
     * @throws IllegalArgumentException when the type is unknown or a file it names cannot be used
     */
    public static LocalPlugin start(String proxyName, PluginConfig config, EventLoopGroup group)
            throws InterruptedException {
        return start(proxyName, config, group, HeadDeadline.DEFAULT_MILLIS);
    }

    /** As {@link #start(String, PluginConfig, EventLoopGroup)} for tests, with the time a visitor has for its request head. */
    static LocalPlugin start(PluginConfig config, EventLoopGroup group, long headDeadlineMillis)
            throws InterruptedException {
        return start(config.type, config, group, headDeadlineMillis);
    }

    /** As {@link #start(String, PluginConfig, EventLoopGroup)} for tests. */
    static LocalPlugin start(PluginConfig config, EventLoopGroup group) throws InterruptedException {
        return start(config.type, config, group, HeadDeadline.DEFAULT_MILLIS);
    }

    private static LocalPlugin start(String proxyName, PluginConfig config, EventLoopGroup group, long headDeadlineMillis)
            throws InterruptedException {
        return switch (config.type) {
            case "static_file" -> StaticFileServer.start(group, Transports.serverChannel(), Path.of(config.localPath),
                    config.stripPrefix, config.httpUser, config.httpPassword);
            case "unix_domain_socket" -> new UnixSocketPlugin(Path.of(config.unixPath));
            case "http_proxy" -> {
                BasicAuth auth = BasicAuth.of(config.httpUser, config.httpPassword);
                warnIfOpen(proxyName, config, auth == null, "httpUser/httpPassword");
                yield LoopbackServer.start(group, "http_proxy",
                        new HttpProxyInitializer(auth, Destinations.of(config.allowDestinations), headDeadlineMillis));
            }
            case "socks5" -> {
                SocksCredentials credentials = SocksCredentials.of(config.username, config.password);
                warnIfOpen(proxyName, config, credentials == null, "username/password");
                yield LoopbackServer.start(group, "socks5",
                        new Socks5Initializer(credentials, Destinations.of(config.allowDestinations), headDeadlineMillis));
            }
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

    /**
     * A proxy plugin without credentials is one anybody who finds its remote port can use, to
     * every destination {@code allowDestinations} lets through: said once, when it starts.
     */
    private static void warnIfOpen(String proxyName, PluginConfig config, boolean open, String keys) {
        if (open) {
            LOG.warn("proxy [{}]: plugin {} has no {}: anyone who reaches its remote port can use it to reach {}",
                    proxyName, config.type, keys, config.allowDestinations.isEmpty()
                            ? "any address beyond this machine (set the credentials, or allowDestinations to narrow it)"
                            : "allowDestinations " + config.allowDestinations);
        }
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
