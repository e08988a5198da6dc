package dev.tunnel.e2e;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A local UDP app for tests: sends every datagram back to where it came from, and remembers
 * the source addresses it saw (one per association, since the client uses a socket per peer).
 * One daemon thread.
 */
final class UdpEcho implements AutoCloseable {
    private final DatagramSocket socket;
    private final Set<InetSocketAddress> sources = ConcurrentHashMap.newKeySet();
    private final Thread thread;

    UdpEcho() throws IOException {
        socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        socket.setReceiveBufferSize(4 * 1024 * 1024);
        thread = new Thread(this::loop, "udp-echo");
        thread.setDaemon(true);
        thread.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    /** Addresses datagrams came from so far. */
    Set<InetSocketAddress> sources() {
        return sources;
    }

    private void loop() {
        byte[] buf = new byte[65536];
        DatagramPacket packet = new DatagramPacket(buf, buf.length);
        while (!socket.isClosed()) {
            try {
                packet.setData(buf);
                socket.receive(packet);
                sources.add((InetSocketAddress) packet.getSocketAddress());
                socket.send(packet);
            } catch (IOException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
