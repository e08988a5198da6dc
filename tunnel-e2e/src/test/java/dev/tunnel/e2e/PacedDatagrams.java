package dev.tunnel.e2e;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends numbered datagrams of pseudo-random content at a fixed pace to an echo through the
 * tunnel, and counts those that come back whole (same length, same bytes, each once), as the
 * issue's measurement does: no window, so a slow reader shows as loss. The receiver runs on its
 * own thread and stops once nothing came for {@code quietMillis} after the last send.
 */
final class PacedDatagrams {
    private PacedDatagrams() {
    }

    static byte[] datagram(int seq, int size) {
        byte[] b = new byte[size];
        new Random(seq).nextBytes(b);
        ByteBuffer.wrap(b).putInt(seq);
        return b;
    }

    /** How many of {@code total} datagrams of {@code size} bytes, sent at {@code perSecond}, came back intact. */
    static int echoed(InetSocketAddress to, int total, int size, int perSecond, int quietMillis) throws Exception {
        boolean[] back = new boolean[total];
        int[] intact = new int[1];
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            s.setReceiveBufferSize(4 * 1024 * 1024);
            s.setSoTimeout(quietMillis);
            Thread receiver = new Thread(() -> receive(s, back, intact, size), "paced-receiver");
            receiver.start();
            long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
            long start = System.nanoTime();
            for (int seq = 0; seq < total; seq++) {
                long due = start + seq * interval;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                byte[] d = datagram(seq, size);
                s.send(new DatagramPacket(d, d.length, to));
            }
            receiver.join(TimeUnit.SECONDS.toMillis(30));
        }
        synchronized (back) {
            return intact[0];
        }
    }

    private static void receive(DatagramSocket s, boolean[] back, int[] intact, int size) {
        byte[] buf = new byte[size + 1];
        DatagramPacket in = new DatagramPacket(buf, buf.length);
        while (true) {
            try {
                s.receive(in);
            } catch (SocketTimeoutException quiet) {
                return;
            } catch (IOException closed) {
                return;
            }
            int seq = ByteBuffer.wrap(buf).getInt();
            synchronized (back) {
                if (in.getLength() == size && seq >= 0 && seq < back.length && !back[seq]
                        && Arrays.equals(Arrays.copyOf(buf, size), datagram(seq, size))) {
                    back[seq] = true;
                    intact[0]++;
                }
            }
        }
    }
}
