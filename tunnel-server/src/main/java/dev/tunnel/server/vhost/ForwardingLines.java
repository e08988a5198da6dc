package dev.tunnel.server.vhost;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The forwarding header lines a spliced head gets ({@link RequestSplice}): {@code X-Forwarded-For},
 * {@code X-Forwarded-Host} (when the request has a Host), {@code X-Forwarded-Proto} and
 * {@code X-Real-IP}, each ending with CRLF. They depend only on the visitor's address, the port's
 * protocol and the Host value, so one connection keeps the lines of its last Host: successive
 * requests mostly repeat it.
 *
 * <p>Threading: one connection's event loop.
 */
final class ForwardingLines {
    private final String ip;
    private final String proto;
    private String host;
    private byte[] lines;

    /** @param ip the visitor's address, as {@code X-Forwarded-For} and {@code X-Real-IP} give it */
    ForwardingLines(String ip, String proto) {
        this.ip = ip;
        this.proto = proto;
    }

    /** The visitor's address as the lines give it. */
    String ip() {
        return ip;
    }

    /** The lines for a request whose Host is {@code host} (null: none). */
    byte[] of(String host) {
        if (lines == null || !Objects.equals(host, this.host)) {
            this.host = host;
            this.lines = build(host);
        }
        return lines;
    }

    private byte[] build(String host) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        line(out, RequestTarget.X_FORWARDED_FOR, ip);
        if (host != null) {
            line(out, RequestTarget.X_FORWARDED_HOST, host);
        }
        line(out, RequestTarget.X_FORWARDED_PROTO, proto);
        line(out, RequestTarget.X_REAL_IP, ip);
        return out.toByteArray();
    }

    private static void line(ByteArrayOutputStream out, String name, String value) {
        out.writeBytes((name + ": " + value + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }
}
