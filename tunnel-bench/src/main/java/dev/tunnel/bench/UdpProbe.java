package dev.tunnel.bench;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

/**
 * UDP figures for bench/udp.sh, each bounded in count and time:
 *
 * <pre>
 * java -cp tunnel-bench.jar dev.tunnel.bench.UdpProbe echo  --listen 127.0.0.1:PORT
 * java -cp tunnel-bench.jar dev.tunnel.bench.UdpProbe check --target 127.0.0.1:PORT [--count 2000] [--size 1200] [--window 32]
 * java -cp tunnel-bench.jar dev.tunnel.bench.UdpProbe dns   --target 127.0.0.1:PORT --name bench.lan [--count 300]
 * </pre>
 *
 * {@code echo} sends every datagram back to its sender. {@code check} sends numbered random
 * datagrams with at most {@code window} in flight and counts those that come back intact
 * ({@code RESULT sent=N intact=M}). {@code dns} sends A queries for {@code name} one at a time
 * and prints the median and 99th percentile round trip of the valid answers
 * ({@code RESULT p50_us=.. p99_us=.. ok=N}).
 */
public final class UdpProbe {
    private static final int TIMEOUT_MILLIS = 2000;

    private UdpProbe() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        String mode = args.positional().isEmpty() ? "" : args.positional().get(0);
        switch (mode) {
            case "echo" -> echo(address(args.required("listen")));
            case "check" -> check(address(args.required("target")), (int) args.number("count", 2000, 1, 1_000_000),
                    (int) args.number("size", 1200, 4, 65000), (int) args.number("window", 32, 1, 4096));
            case "dns" -> dns(address(args.required("target")), args.required("name"),
                    (int) args.number("count", 300, 1, 100_000));
            default -> throw new IllegalArgumentException("mode: \"" + mode + "\" (expected: echo, check, dns)");
        }
    }

    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    private static void echo(InetSocketAddress listen) throws IOException {
        try (DatagramSocket socket = new DatagramSocket(listen)) {
            socket.setReceiveBufferSize(4 << 20);
            byte[] buf = new byte[65536];
            DatagramPacket packet = new DatagramPacket(buf, buf.length);
            System.out.println("listening on " + socket.getLocalSocketAddress());
            while (true) {
                packet.setData(buf);
                socket.receive(packet);
                socket.send(packet);
            }
        }
    }

    private static byte[] datagram(int seq, int size) {
        byte[] b = new byte[size];
        new Random(seq).nextBytes(b);
        ByteBuffer.wrap(b).putInt(seq);
        return b;
    }

    private static void check(InetSocketAddress target, int count, int size, int window) throws IOException {
        boolean[] back = new boolean[count];
        int intact = 0;
        int sent = 0;
        int outstanding = 0;
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(TIMEOUT_MILLIS);
            s.setReceiveBufferSize(4 << 20);
            byte[] buf = new byte[65536];
            DatagramPacket in = new DatagramPacket(buf, buf.length);
            while (sent < count || outstanding > 0) {
                while (sent < count && outstanding < window) {
                    byte[] d = datagram(sent, size);
                    s.send(new DatagramPacket(d, d.length, target));
                    sent++;
                    outstanding++;
                }
                try {
                    in.setData(buf);
                    s.receive(in);
                } catch (SocketTimeoutException lost) {
                    outstanding = 0;
                    continue;
                }
                outstanding--;
                int seq = ByteBuffer.wrap(buf).getInt();
                if (in.getLength() == size && seq >= 0 && seq < count && !back[seq]
                        && Arrays.equals(Arrays.copyOf(buf, size), datagram(seq, size))) {
                    back[seq] = true;
                    intact++;
                }
            }
        }
        System.out.printf("RESULT sent=%d intact=%d pct=%.2f%n", count, intact, 100.0 * intact / count);
    }

    private static void dns(InetSocketAddress target, String name, int count) throws IOException, InterruptedException {
        long[] rtt = new long[count];
        int ok = 0;
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(TIMEOUT_MILLIS);
            byte[] buf = new byte[4096];
            DatagramPacket in = new DatagramPacket(buf, buf.length);
            for (int i = -20; i < count; i++) { // 20 unrecorded: the first association, warm code paths
                int id = (i + 100_000) & 0xFFFF;
                byte[] query = query(id, name);
                long start = System.nanoTime();
                s.send(new DatagramPacket(query, query.length, target));
                boolean valid = false;
                while (!valid) {
                    try {
                        in.setData(buf);
                        s.receive(in);
                    } catch (SocketTimeoutException lost) {
                        break;
                    }
                    ByteBuffer answer = ByteBuffer.wrap(buf, 0, in.getLength());
                    valid = in.getLength() >= 12 && (answer.getShort(0) & 0xFFFF) == id
                            && (answer.get(3) & 0x0F) == 0 && answer.getShort(6) > 0;
                }
                long elapsed = System.nanoTime() - start;
                if (valid && i >= 0) {
                    rtt[ok++] = elapsed;
                }
                Thread.sleep(2);
            }
        }
        long[] done = Arrays.copyOf(rtt, ok);
        Arrays.sort(done);
        if (ok == 0) {
            System.out.println("RESULT p50_us=? p99_us=? ok=0");
            return;
        }
        System.out.printf("RESULT p50_us=%d p99_us=%d ok=%d%n", done[ok / 2] / 1000,
                done[Math.min(ok - 1, (int) (ok * 0.99))] / 1000, ok);
    }

    /** A DNS query for the A record of {@code name}, recursion desired. */
    static byte[] query(int id, String name) {
        ByteBuffer b = ByteBuffer.allocate(512);
        b.putShort((short) id).putShort((short) 0x0100).putShort((short) 1).putShort((short) 0).putShort((short) 0)
                .putShort((short) 0);
        for (String label : name.split("\\.")) {
            byte[] bytes = label.getBytes(StandardCharsets.US_ASCII);
            b.put((byte) bytes.length).put(bytes);
        }
        b.put((byte) 0).putShort((short) 1).putShort((short) 1);
        return Arrays.copyOf(b.array(), b.position());
    }
}
