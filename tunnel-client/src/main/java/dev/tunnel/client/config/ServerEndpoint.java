package dev.tunnel.client.config;

import java.util.ArrayList;
import java.util.List;

/**
 * One server the client connects to, with the TLS name and fingerprint that apply to it: from
 * {@code serverAddr}/{@code serverPort}, an entry of {@code serverAddrs} or a {@code [[servers]]} table.
 *
 * @param host        host name or address
 * @param port        its bindPort
 * @param serverName  the name checked against its certificate
 * @param fingerprint its pinned certificate fingerprint, or null
 */
public record ServerEndpoint(String host, int port, String serverName, String fingerprint) {

    /** {@code host:port}, with brackets around an IPv6 address. */
    public String address() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return address();
    }

    /** Every server of {@code config}, in the order written: {@code serverAddrs} first, then {@code [[servers]]}. */
    static List<ServerEndpoint> of(ClientConfig config) {
        ClientConfig.Tls tls = config.transport.tls;
        if (config.serverAddrs.isEmpty() && config.servers.isEmpty()) {
            return List.of(new ServerEndpoint(config.serverAddr, config.serverPort, config.effectiveServerName(),
                    tls.serverFingerprint));
        }
        List<ServerEndpoint> out = new ArrayList<>();
        for (String hostPort : config.serverAddrs) {
            HostPort hp = HostPort.parse(hostPort);
            out.add(new ServerEndpoint(hp.host(), hp.port(), nameOr(tls.serverName, hp.host()), tls.serverFingerprint));
        }
        for (ServerEntry s : config.servers) {
            String name = s.transport.tls.serverName != null ? s.transport.tls.serverName : nameOr(tls.serverName, s.addr);
            String pin = s.transport.tls.serverFingerprint != null ? s.transport.tls.serverFingerprint
                    : tls.serverFingerprint;
            out.add(new ServerEndpoint(s.addr, s.port, name, pin));
        }
        return List.copyOf(out);
    }

    private static String nameOr(String name, String host) {
        return name == null || name.isBlank() ? host : name;
    }

    /** A parsed {@code "host:port"}. */
    record HostPort(String host, int port) {
        /**
         * @throws IllegalArgumentException saying what is wrong and what is expected
         */
        static HostPort parse(String text) {
            String expected = " (expected: \"host:port\", such as \"vps1.example:7000\" or \"[2001:db8::1]:7000\")";
            int colon = text == null ? -1 : text.lastIndexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw new IllegalArgumentException("\"" + text + "\"" + expected);
            }
            String host = text.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            } else if (host.indexOf(':') >= 0) {
                throw new IllegalArgumentException("\"" + text + "\": an IPv6 address goes in brackets" + expected);
            }
            if (host.isBlank() || host.chars().anyMatch(c -> Character.isWhitespace(c) || c == '/')) {
                throw new IllegalArgumentException("\"" + text + "\": bad host" + expected);
            }
            int port;
            try {
                port = Integer.parseInt(text.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"" + text + "\": bad port" + expected);
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("\"" + text + "\": port " + port + " (expected: 1-65535)");
            }
            return new HostPort(host, port);
        }
    }
}
