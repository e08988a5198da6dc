package dev.tunnel.server.config;

import dev.tunnel.config.ConfigException;
import dev.tunnel.config.MuxTransportConfig;
import dev.tunnel.config.TokenAuthConfig;
import dev.tunnel.tls.TlsFilesConfig;
import dev.tunnel.server.proxy.ServerProxyTypes;
import dev.tunnel.config.ConfigLoader;
import dev.tunnel.web.WebServerConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Server settings, read from a TOML file with frp's key names (frps.toml, v0.52+ format).
 *
 * <p>Fields are public and mutable: the TOML key is the field name and the field initializer is
 * the default, so this class is the one place defaults live. Times are in seconds, sizes in
 * bytes. File paths are kept as written; relative ones are relative to the working directory.
 */
public class ServerConfig {

    /** frp's top-level {@code version}: accepted and ignored, as frp ignores it. */
    public String version = "";
    /** Address the control port listens on. */
    public String bindAddr = "0.0.0.0";
    /** Port clients connect to (1-65535). */
    public int bindPort = 7000;
    /** Address the public proxy ports listen on; null means {@link #bindAddr}. */
    public String proxyBindAddr;
    /** Seconds to wait for the client to pick up a new public connection (> 0). */
    public int userConnTimeout = 10;
    /** Public ports one client may hold; 0 = unlimited. */
    public int maxPortsPerClient = 0;
    /**
     * Tunnel extension: proxies one client session may hold, of every type (those without a
     * port, stcp, sudp, xtcp and http, count too); more are refused. 0 = unlimited.
     */
    public int maxProxiesPerClient = 10_000;
    /**
     * Whether clients are told why a login or a proxy was refused (true, frp's default); false
     * sends frp's generic "register control error" / "new proxy [NAME] error" instead, and only
     * the server's log has the reason.
     */
    public boolean detailedErrorsToClient = true;
    /** Ports clients may ask for; empty allows every port. */
    public List<PortRange> allowPorts = new ArrayList<>();
    /** Largest datagram, in bytes, that udp proxies carry; longer ones are dropped (1-65535). */
    public int udpPacketSize = 1500;
    /** Shared port for {@code type = "http"} proxies, routed by Host and path; 0 = off. */
    public int vhostHTTPPort = 0;
    /** Shared port for {@code type = "https"} proxies, routed by the TLS server name (SNI); 0 = off. */
    public int vhostHTTPSPort = 0;
    /** Seconds a local app behind an http proxy may take to start its response (then 504; >= 1). */
    public int vhostHTTPTimeout = 60;
    /**
     * Tunnel extension (frp has none): seconds a request body on the vhost HTTP port may go
     * without a byte reaching the app; then both sides are closed (408 if the app has not answered; >= 1).
     */
    public int vhostHTTPBodyTimeout = 60;
    /** Domain under which clients may take {@code subdomain}s: subdomain "web" serves web.subDomainHost; "" = off. */
    public String subDomainHost = "";
    /**
     * Tunnel extension: balancers (IP addresses or CIDR networks, e.g. {@code "10.0.0.0/8"}) whose
     * PROXY protocol v1/v2 header the public ports (tcp, vhost HTTP/HTTPS, tcpmux) read to learn
     * the visitor. A connection from one of them must start with the header; a header from any
     * other address is refused. Empty (the default): no header is read.
     */
    public List<String> proxyProtocolTrustedIPs = new ArrayList<>();
    /** Shared port for {@code type = "tcpmux"} proxies: HTTP CONNECT routed by host; 0 = off. */
    public int tcpmuxHTTPConnectPort = 0;
    /** tcpmux: forward the CONNECT head to the local app instead of answering it with 200. */
    public boolean tcpmuxPassthrough = false;
    /** HTML file served for a host no http proxy serves (404); null = the built-in page. */
    public String custom404Page;
    public Auth auth = new Auth();
    public Transport transport = new Transport();
    /** {@code [log]}. */
    public ServerLogConfig log = new ServerLogConfig();
    /** {@code [webServer]}: dashboard, REST API and /metrics; off until a port is set. */
    public WebServerConfig webServer = new WebServerConfig();
    /** Serve Prometheus metrics on the web server at {@code /metrics}. */
    public boolean enablePrometheus = false;
    /** Tunnel extension, {@code [[users]]}: clients with their own token and port rules (a client sends {@code user}). */
    public List<User> users = new ArrayList<>();
    /** {@code [[httpPlugins]]}: frp's server plugins, asked in this order before the ops they list go ahead. */
    public List<HttpPlugin> httpPlugins = new ArrayList<>();

    /**
     * {@code [auth]}: how clients prove who they are. {@code token} must equal the clients'
     * {@code auth.token}; with {@code [[users]]}, an empty token means only users may log in.
     */
    public static class Auth extends TokenAuthConfig {
        /** Tunnel extension: failed logins from one IP address within a minute before it is refused; 0 = no limit. */
        public int maxFailedLogins = 5;
        /** Tunnel extension: seconds an IP address is refused after maxFailedLogins. */
        public int failedLoginBlockSeconds = 60;
        /**
         * Tunnel extension: the shared token's SPAKE2+ verifier instead of the token
         * ({@code java -jar tunnel-server.jar verifier --token-file F}); only PAKE-capable clients
         * can log in to it. Null = unset.
         */
        public String tokenVerifier;
    }

    /** {@code [[users]]} (tunnel extension): one client identity. */
    public static class User {
        /** What the client puts in its {@code user} key; its proxies are namespaced by it. */
        public String name;
        /** This user's own secret (or tokenFile). */
        public String token;
        /** File holding this user's token, instead of token. */
        public String tokenFile;
        /** This user's token's SPAKE2+ verifier, instead of token (only PAKE-capable clients can log in). */
        public String tokenVerifier;
        /** Ports this user may open; empty = the server's allowPorts. */
        public List<PortRange> allowPorts = new ArrayList<>();
        /** Public ports this user may hold over all its clients; -1 = the server's maxPortsPerClient, 0 = unlimited. */
        public int maxPortsPerClient = -1;
        /**
         * Domains this user's http and https proxies may take (customDomains, and subdomains under
         * subDomainHost): exact names or {@code *.example.com} for every name below it; empty = any.
         */
        public List<String> allowDomains = new ArrayList<>();
    }

    /** {@code [[httpPlugins]]}: one server plugin, an HTTP service the server POSTs JSON to (docs/config.md). */
    public static class HttpPlugin {
        /** Names the plugin in logs and in the errors clients see. */
        public String name;
        /** HOST:PORT (http), http://HOST:PORT or https://HOST:PORT. */
        public String addr;
        /** Request path, appended to addr. */
        public String path = "";
        /** Login, NewProxy, CloseProxy, Ping, NewWorkConn and/or NewUserConn. */
        public List<String> ops = new ArrayList<>();
        /** With an https addr: check the plugin's certificate and name (false, frp's default, takes any certificate). */
        public boolean tlsVerify = false;
    }

    /** {@code [transport]}: the connection between client and server. */
    public static class Transport extends MuxTransportConfig {
        /** Carry all streams of a client over one connection. */
        public boolean tcpMux = true;
        /**
         * TCP keep-alive on client connections (control and work), in seconds: idle time before
         * the first probe and interval between probes (as frp); negative = off, 0 = 7200.
         */
        public int tcpKeepalive = 7200;
        /** Seconds without a heartbeat before a client is dropped; -1 disables. */
        public int heartbeatTimeout = 90;
        /** Most pre-opened work connections kept per client (>= 0). */
        public int maxPoolCount = 5;
        /**
         * Tunnel extension: seconds a stopping server lets public connections in flight finish
         * after it stopped accepting (0-3600; 0 = close them at once).
         */
        public int drainTimeout = 10;
        /** Tunnel extension: seconds a new connection has to finish TLS and log in (> 0). */
        public int loginTimeout = 10;
        /** Tunnel extension: open streams (public connections) one client may have; more are refused. 0 = unlimited. */
        public int maxStreamsPerClient = 32_768;
        /** Tunnel extension: open public connections one proxy may carry; more are refused. 0 = unlimited. */
        public int maxConnectionsPerProxy = 0;
        /**
         * Tunnel extension: open public connections one remote IP address may hold over all
         * proxies; more are refused. 0 = unlimited.
         */
        public int maxConnectionsPerIP = 0;
        /**
         * Tunnel extension: new connections a second one address may open on bindPort (each a TLS
         * handshake); more are reset before TLS. 0 = unlimited.
         */
        public int handshakeRatePerIP = 50;
        /** Tunnel extension: connections one address may open at once after a quiet spell (> 0). */
        public int handshakeBurstPerIP = 20;
        /**
         * Tunnel extension: new connections a second all addresses together may open on bindPort;
         * more are reset before TLS. 0 = unlimited.
         */
        public int handshakeRate = 200;
        public Tls tls = new Tls();
    }

    /**
     * {@code [transport.tls]}: {@code certFile} unset = a generated self-signed certificate;
     * {@code trustedCaFile} set = clients must present a certificate it signed.
     */
    public static class Tls extends TlsFilesConfig {
        /** Refuse clients that do not use TLS. */
        public boolean force = false;
        /** Tunnel extension: directory keeping the self-signed certificate across restarts; null = a new one each start. */
        public String selfSignedDir;
        /** frp's key, shared with the client's table: accepted and unused on a server, as in frps. */
        public String serverName;
    }

    /** Address the public proxy ports bind to. */
    public String effectiveProxyBindAddr() {
        return proxyBindAddr == null || proxyBindAddr.isBlank() ? bindAddr : proxyBindAddr;
    }

    /** Whether a client may open {@code port}; true for any port when allowPorts is empty. */
    public boolean isPortAllowed(int port) {
        return allowPorts.isEmpty() || allowPorts.stream().anyMatch(r -> r.contains(port));
    }

    /** Loads and validates {@code file}; relative paths inside are checked against the working directory. */
    public static ServerConfig load(Path file) throws ConfigException {
        return load(file, Path.of(""));
    }

    /** Loads and validates {@code file}, checking relative paths inside against {@code baseDir}. */
    public static ServerConfig load(Path file, Path baseDir) throws ConfigException {
        return loader(baseDir).load(file);
    }

    /** Parses TOML text; for tests. Relative paths are checked against the working directory. */
    public static ServerConfig parse(String toml, String fileNameForErrors, Function<String, String> env)
            throws ConfigException {
        return parse(toml, fileNameForErrors, env, Path.of(""));
    }

    /** Parses TOML text, checking relative file paths against {@code baseDir}. */
    public static ServerConfig parse(String toml, String fileNameForErrors, Function<String, String> env, Path baseDir)
            throws ConfigException {
        return loader(baseDir).parse(toml, fileNameForErrors, env);
    }

    private static ConfigLoader<ServerConfig> loader(Path baseDir) {
        return new ConfigLoader<>(ServerConfig.class, UnsupportedServerKeys.KEYS, new ServerConfigValidator(baseDir,
                ServerProxyTypes.standard()));
    }
}
