package dev.tunnel.web;

import dev.tunnel.config.ValueChecks;
import java.net.InetAddress;

/**
 * The {@code [webServer]} table, as frps.toml and frpc.toml spell it; each config class holds
 * one. Defaults are frp's: loopback only, no server until a port is set.
 */
public class WebServerConfig {
    /** Address to listen on; the default keeps the web server to this machine. */
    public String addr = "127.0.0.1";
    /** Port to listen on; 0 = no web server. */
    public int port = 0;
    /** User for HTTP basic auth; empty with an empty password = no auth (loopback only: beyond it both must be set). */
    public String user = "";
    /** Password for HTTP basic auth. */
    public String password = "";
    /** frp's Go profiler; only false is accepted (the JVM has its own: JFR, jcmd). */
    public boolean pprofEnable = false;
    public Tls tls = new Tls();

    /** {@code [webServer.tls]}: serve HTTPS with this certificate. */
    public static class Tls {
        /** PEM certificate chain; needs keyFile. */
        public String certFile;
        /** PEM private key of certFile. */
        public String keyFile;
    }

    /** Whether a web server is configured at all. */
    public boolean enabled() {
        return port > 0;
    }

    public WebSettings settings() {
        return new WebSettings(addr, port, user, password, tls.certFile, tls.keyFile);
    }

    /** Checks the table; {@code prefix} is its key ("webServer"). */
    public void validate(String prefix, ValueChecks checks) {
        checks.range(prefix + ".port", port, 0, 65535);
        if (!enabled()) {
            return;
        }
        checks.notBlank(prefix + ".addr", addr);
        checks.check(user != null && password != null, prefix + ".user", "user and password must not be null");
        checks.check(!pprofEnable, prefix + ".pprofEnable", "true is not supported (Go's profiler; on the JVM use JFR or jcmd)");
        checks.together(prefix + ".tls.certFile", tls.certFile, prefix + ".tls.keyFile", tls.keyFile);
        checks.readableFile(prefix + ".tls.certFile", tls.certFile);
        checks.readableFile(prefix + ".tls.keyFile", tls.keyFile);
        if (addr != null && !addr.isBlank()) {
            String refusal = settings().refusal(prefix, isLoopback(addr));
            checks.check(refusal == null, prefix + ".addr", refusal);
        }
    }

    /** Whether {@code addr} is loopback, judged without resolving a host name (only "localhost" is taken as one). */
    private static boolean isLoopback(String addr) {
        if (addr.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!addr.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            return false; // a host name: do not resolve it while validating
        }
        try {
            return InetAddress.getByName(addr).isLoopbackAddress();
        } catch (Exception e) {
            return false;
        }
    }
}
