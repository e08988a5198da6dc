package dev.tunnel.client.config;

import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.config.ConfigErrors;
import dev.tunnel.config.ConfigException;
import dev.tunnel.config.MuxTransportConfig;
import dev.tunnel.config.TokenAuthConfig;
import dev.tunnel.runtime.LogConfig;
import dev.tunnel.tls.TlsFilesConfig;
import dev.tunnel.config.ConfigLoader;
import dev.tunnel.config.KeyLocator;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.web.WebServerConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Client settings, read from a TOML file with frp's key names (frpc.toml, v0.52+ format).
 *
 * <p>Fields are public and mutable: the TOML key is the field name and the field initializer is
 * the default, so this class is the one place defaults live. Times are in seconds, sizes in
 * bytes. File paths are kept as written; relative ones are relative to the working directory.
 */
public class ClientConfig {

    /** frp's top-level {@code version}: accepted and ignored, as frp ignores it. */
    public String version = "";
    /** Server host name or address. */
    public String serverAddr = "127.0.0.1";
    /** Server's bindPort (1-65535). */
    public int serverPort = 7000;
    /**
     * Tunnel extension: several servers, {@code "host:port"} each, instead of serverAddr/serverPort
     * (more, with their own TLS name or fingerprint, in {@code [[servers]]}).
     */
    public List<String> serverAddrs = new ArrayList<>();
    /**
     * Tunnel extension: with several servers, {@code "all"} (a session on each, every proxy on
     * every one) or {@code "failover"} (one at a time, in order); "" = "all".
     */
    public String serverMode = "";
    /** Tunnel extension: {@code [[servers]]}, servers with their own {@code transport.tls} name or fingerprint. */
    public List<ServerEntry> servers = new ArrayList<>();
    /** Exit when the first login fails instead of retrying. */
    public boolean loginFailExit = true;
    /** User name for servers with per-user tokens ([[users]]); its proxies are namespaced by it. "" = the shared token. */
    public String user = "";
    /**
     * Names of the proxies and visitors to run; empty (the default) = all of them (each still
     * subject to its own {@code enabled}). Every name must be one of them.
     */
    public List<String> start = new ArrayList<>();
    /** frp's client id: shown by the server's /api/clients ("" = none; the run id identifies the process). */
    public String clientID = "";
    /** {@code metadatas.NAME = VALUE}: sent at login, shown by the server's /api/clients (frp's {@code metas}). */
    public java.util.Map<String, String> metadatas = new java.util.LinkedHashMap<>();
    /** Largest datagram, in bytes, that udp and sudp proxies and sudp visitors carry; longer ones are dropped (1-65535). */
    public int udpPacketSize = 1500;
    public Auth auth = new Auth();
    public Transport transport = new Transport();
    /** {@code [log]}. */
    public LogConfig log = new LogConfig();
    /** {@code [webServer]}: the admin API (status, reload, config, stop); off until a port is set. */
    public WebServerConfig webServer = new WebServerConfig();
    /** {@code [[proxies]]}: what to expose. */
    public List<ProxyConfig> proxies = new ArrayList<>();
    /**
     * Files with more {@code [[proxies]]} and {@code [[visitors]]}: paths whose last part may be
     * a glob ({@code "./confd/*.toml"}), relative to the working directory ({@link Includes}).
     */
    public List<String> includes = new ArrayList<>();
    /** {@code [[visitors]]}: local ports that reach other clients' stcp/sudp proxies. */
    public List<VisitorConfig> visitors = new ArrayList<>();

    /** {@code [auth]}: {@code token} must equal the server's auth.token (or the server's token for {@code user}). */
    public static class Auth extends TokenAuthConfig {
    }

    /** {@code [transport]}: the connection to the server. */
    public static class Transport extends MuxTransportConfig {
        /** Only "tcp" for now. */
        public String protocol = "tcp";
        /**
         * frp's choice of its own message format ("v1", "v2"). Tunnel speaks its own protocol to
         * a tunnel server whatever this says, so only frp's default "v1" is accepted.
         */
        public String wireProtocol = "v1";
        /**
         * TCP keep-alive on the connections to the server, in seconds: idle time before the first
         * probe and interval between probes (as frp); negative = off, 0 = 7200.
         */
        public int dialServerKeepalive = 7200;
        /** Local address the connections to the server leave from ("" = the OS picks, as for any connection). */
        public String connectServerLocalIP = "";
        /** Seconds to wait for the TCP connection to the server (> 0). */
        public int dialServerTimeout = 10;
        /** Carry all streams over one connection. */
        public boolean tcpMux = true;
        /** Work connections opened ahead of time (0-100). */
        public int poolCount = 1;
        /** Seconds between heartbeats; -1 disables. */
        public int heartbeatInterval = 30;
        /** Seconds without a heartbeat reply before reconnecting; -1 disables. */
        public int heartbeatTimeout = 90;
        /**
         * Tunnel extension: seconds a stopping client lets connections in flight finish after it
         * told the server it is leaving (0-3600; 0 = close them at once).
         */
        public int drainTimeout = 10;
        public Tls tls = new Tls();
    }

    /**
     * {@code [transport.tls]}: {@code certFile} is the client certificate for servers that check
     * one; {@code trustedCaFile} unset = the server certificate is not verified (frp's default;
     * the login is bound to it anyway).
     */
    public static class Tls extends TlsFilesConfig {
        /** Use TLS to the server. */
        public boolean enable = true;
        /** Name to verify in the server certificate; null = serverAddr. */
        public String serverName;
        /** Tunnel extension: the server certificate's SHA-256 fingerprint ("sha256:AB:CD:..."); any other is refused. */
        public String serverFingerprint;
        /**
         * frp's switch for a custom first byte (0x17) before TLS; TLS here always starts with
         * its first byte, as frp does by default, so only true is accepted.
         */
        public boolean disableCustomTLSFirstByte = true;
    }

    /** Every server to connect to, in order (one: serverAddr/serverPort, unless serverAddrs or [[servers]] are set). */
    public List<ServerEndpoint> serverEndpoints() {
        return ServerEndpoint.of(this);
    }

    /** True when the client connects to each server of {@link #serverEndpoints()} one at a time. */
    public boolean failover() {
        return ServersValidator.FAILOVER.equals(serverMode);
    }

    /** The proxies to run: those {@link #start} names (all when empty) whose {@code enabled} is not false. */
    public List<ProxyConfig> activeProxies() {
        return proxies.stream().filter(p -> p.enabled && (start.isEmpty() || start.contains(p.name))).toList();
    }

    /** The visitors to run, chosen as {@link #activeProxies()} are. */
    public List<VisitorConfig> activeVisitors() {
        return visitors.stream().filter(v -> v.enabled && (start.isEmpty() || start.contains(v.name))).toList();
    }

    /** The name checked against the certificate of serverAddr. */
    public String effectiveServerName() {
        return transport.tls.serverName == null || transport.tls.serverName.isBlank()
                ? serverAddr : transport.tls.serverName;
    }

    /** Loads and validates {@code file}; relative paths inside are checked against the working directory. */
    public static ClientConfig load(Path file) throws ConfigException {
        return load(file, Path.of(""));
    }

    /** Loads and validates {@code file}, checking relative paths inside against {@code baseDir}. */
    public static ClientConfig load(Path file, Path baseDir) throws ConfigException {
        return loader(baseDir).load(file);
    }

    /** Parses TOML text; for tests. Relative paths are checked against the working directory. */
    public static ClientConfig parse(String toml, String fileNameForErrors, Function<String, String> env)
            throws ConfigException {
        return parse(toml, fileNameForErrors, env, Path.of(""));
    }

    /** Parses TOML text, checking relative file paths against {@code baseDir}. */
    public static ClientConfig parse(String toml, String fileNameForErrors, Function<String, String> env, Path baseDir)
            throws ConfigException {
        return loader(baseDir).parse(toml, fileNameForErrors, env);
    }

    /**
     * Checks one {@code [[proxies]]} entry as loading a file would (a proxy added to a running
     * client); relative paths against the working directory.
     *
     * @throws ConfigException listing every problem, named {@code proxy [NAME]}
     */
    public static void checkProxy(ProxyConfig proxy, ClientProxyTypes types) throws ConfigException {
        ConfigErrors errors = new ConfigErrors("proxy [" + proxy.name + "]", KeyLocator.scan(""));
        new ProxiesValidator(new ValueChecks(errors, Path.of("")), types).proxy("proxies", proxy);
        errors.throwIfAny();
    }

    private static ConfigLoader<ClientConfig> loader(Path baseDir) {
        return new ConfigLoader<>(ClientConfig.class, UnsupportedClientKeys.KEYS,
                new ClientConfigValidator(baseDir, ClientProxyTypes.standard()));
    }
}
