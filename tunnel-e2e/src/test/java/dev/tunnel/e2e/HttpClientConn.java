package dev.tunnel.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One raw HTTP/1.1 keep-alive connection, as a browser holds it: sends request heads written by
 * the test (any Host), reads responses framed by Content-Length or chunked encoding.
 */
final class HttpClientConn implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** A response: status, headers (lower-case names), body. */
    record Response(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    HttpClientConn(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(20_000);
        in = new java.io.BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Sends {@code GET path} for {@code host} with extra header lines, returns the response. */
    Response get(String host, String path, String... headerLines) throws IOException {
        StringBuilder head = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n");
        for (String h : headerLines) {
            head.append(h).append("\r\n");
        }
        send(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
        return read();
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    Response read() throws IOException {
        String status = line();
        if (status == null) {
            throw new IOException("connection closed before a response");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        String l;
        while (!(l = line()).isEmpty()) {
            int colon = l.indexOf(':');
            headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
        int code = Integer.parseInt(status.split(" ")[1]);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            int size;
            while ((size = Integer.parseInt(line().split(";")[0].trim(), 16)) > 0) {
                body.write(in.readNBytes(size));
                line();
            }
            while (!line().isEmpty()) {
                // trailers
            }
        } else if (headers.containsKey("content-length")) {
            body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        }
        return new Response(code, headers, body.toByteArray());
    }

    /** Whether the server closed the connection (EOF within the read timeout). */
    boolean closedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (java.net.SocketException e) {
            return true;
        }
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                int n = sb.length();
                return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
            }
            sb.append((char) c);
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
