package dev.tunnel.client.config;

/**
 * Tunnel extension: one {@code [[servers]]} table, a server this client also connects to, with
 * its own TLS name and fingerprint where they differ from {@code [transport.tls]}.
 */
public class ServerEntry {
    /** Server host name or address (required). */
    public String addr = "";
    /** Server's bindPort (1-65535). */
    public int port = 7000;
    public Transport transport = new Transport();

    /** {@code [servers.transport]}. */
    public static class Transport {
        public Tls tls = new Tls();
    }

    /** {@code [servers.transport.tls]}: null = the client's {@code transport.tls} value. */
    public static class Tls {
        /** Name to verify in this server's certificate; null = transport.tls.serverName, else addr. */
        public String serverName;
        /** This server's certificate fingerprint ("sha256:AB:..."); null = transport.tls.serverFingerprint. */
        public String serverFingerprint;
    }
}
