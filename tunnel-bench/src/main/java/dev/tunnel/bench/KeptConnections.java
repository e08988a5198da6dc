package dev.tunnel.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connections kept open for a bounded time, each sending one HTTP/1.1 keep-alive request every
 * {@code --every} ms: a connection in flight. A request that fails ends its connection and is
 * printed ({@code RESET <epochMs> <why>}), so a caller sees whether an event elsewhere (a
 * {@code kill -9} of another server) broke connections that did not go through it. With
 * {@code --proxy-v1} each connection starts with a PROXY protocol v1 header, as a balancer sends.
 *
 * <pre>java -cp tunnel-bench.jar dev.tunnel.bench.KeptConnections --target 127.0.0.12:16000 --proxy-v1 --connections 20 --seconds 8</pre>
 *
 * <p>Threads: one blocking thread per connection ({@code --connections} at most 500).
 */
public final class KeptConnections {
    private KeptConnections() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        InetSocketAddress target = Args.address("target", args.required("target"));
        int connections = (int) args.number("connections", 20, 1, 500);
        long endMs = System.currentTimeMillis() + 1000 * args.number("seconds", 8, 1, 600);
        long every = args.number("every", 100, 1, 10_000);
        String proxy = args.has("proxy-v1") ? "PROXY TCP4 127.0.0.1 " + target.getHostString() + " 40000 "
                + target.getPort() + "\r\n" : "";
        byte[] request = (proxy + "GET " + args.string("path", "/ping") + " HTTP/1.1\r\nHost: "
                + args.string("host", "app.example.com") + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] next = ("GET " + args.string("path", "/ping") + " HTTP/1.1\r\nHost: "
                + args.string("host", "app.example.com") + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        ConcurrentLinkedQueue<String> resets = new ConcurrentLinkedQueue<>();
        AtomicLong answered = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Thread t = new Thread(() -> {
                String why = keep(target, request, next, every, endMs, answered);
                if (why != null) {
                    resets.add("RESET " + System.currentTimeMillis() + " " + why);
                }
            }, "kept-" + i);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.printf("%s: %d connections kept, %d requests answered, %d connections broken%n", target,
                connections, answered.get(), resets.size());
        resets.stream().sorted().forEach(System.out::println);
    }

    /** One connection until {@code endMs}: null if every request was answered, else why not. */
    private static String keep(InetSocketAddress target, byte[] first, byte[] next, long every, long endMs,
                               AtomicLong answered) {
        try (Socket s = new Socket()) {
            s.connect(target, 2000);
            s.setSoTimeout(3000);
            OutputStream out = s.getOutputStream();
            InputStream in = new BufferedInputStream(s.getInputStream());
            byte[] request = first;
            while (System.currentTimeMillis() < endMs) {
                out.write(request);
                out.flush();
                request = next;
                String head = readHead(in);
                if (!head.startsWith("HTTP/1.1 200")) {
                    return "answer:" + head.lines().findFirst().orElse("(none)").replaceAll("\\s", "_");
                }
                in.readNBytes(contentLength(head));
                answered.incrementAndGet();
                Thread.sleep(every);
            }
            return null;
        } catch (IOException e) {
            return e.getClass().getSimpleName() + ":" + String.valueOf(e.getMessage()).replaceAll("\\s", "_");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        while (b.length() < 8192 && (b.length() < 4 || !b.substring(b.length() - 4).equals("\r\n\r\n"))) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection closed after " + b.length() + " bytes of an answer");
            }
            b.append((char) c);
        }
        return b.toString();
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        return 0;
    }
}
