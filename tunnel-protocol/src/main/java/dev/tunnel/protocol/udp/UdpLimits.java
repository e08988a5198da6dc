package dev.tunnel.protocol.udp;

import java.util.concurrent.TimeUnit;

/** The bounds of UDP proxying that frp has no key for; both sides use the same ones. */
public final class UdpLimits {
    /** frp's {@code udpPacketSize} default: the largest datagram carried, in bytes. */
    public static final int DEFAULT_PACKET_SIZE = 1500;
    /**
     * An association with no datagram either way for this long ends on the side that accepted it
     * (the server for a udp proxy, the visitor for sudp); longer than the 25 s keepalive
     * WireGuard and most NAT-friendly protocols use.
     */
    public static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);
    /**
     * The home side's socket of an association closes after this long without a datagram, in
     * case the far side's end never arrived (it always does while the session lives).
     */
    public static final long LOCAL_IDLE_NANOS = 2 * IDLE_NANOS;
    /** Associations one UDP proxy or sudp visitor holds at once; a new peer beyond it evicts the longest idle. */
    public static final int MAX_ASSOCIATIONS = 4096;

    /**
     * SO_RCVBUF and SO_SNDBUF asked for on every UDP socket of the tunnel: a burst at 200 Mbit/s
     * outruns the 208 KiB Linux default while the loop is busy with other work. The kernel caps it
     * at {@code net.core.rmem_max} / {@code wmem_max}.
     */
    public static final int SOCKET_BUFFER = 4 * 1024 * 1024;
    /**
     * Bytes of framed datagrams one association may have waiting in its stream (for credit or for
     * the tunnel connection) before further datagrams are dropped: about 100 datagrams of 1,200
     * bytes, 5 ms at 200 Mbit/s, enough for a burst that arrives while the event loop or the
     * credit round trip is briefly slow, and small enough that 4,096 associations stay under the
     * process's direct-memory guard (which pauses the session, and so drops, before that).
     */
    public static final int STREAM_QUEUE = 128 * 1024;
    /**
     * Bytes of payload one association may have waiting at the tunnel's entrance, beyond
     * {@link #STREAM_QUEUE}, while the tunnel is the bottleneck; when full the oldest waiting
     * datagram is dropped. About 870 datagrams of 1,200 bytes, 40 ms at 200 Mbit/s.
     */
    public static final int ASSOCIATION_QUEUE = 1024 * 1024;
    /** Bytes of payload all of one proxy's associations may have waiting at the entrance together. */
    public static final int PROXY_QUEUE = 4 * 1024 * 1024;
    /**
     * Receive window each association's stream holds at least (as far as the session's budget
     * grants): auto-tuning sizes windows from the path's minimum RTT, but a UDP sender cannot wait
     * for credit, and on a busy machine the credit round trip through two event loops takes far
     * longer than a ping: a process waiting for a core for tens of milliseconds is common on a
     * shared VPS. 4 MiB is 160 ms at 200 Mbit/s. The receiver never holds these bytes (a frame's
     * datagrams go to the socket or are dropped as it is read, and its credit goes back then):
     * the window only bounds what may be in flight in the tunnel connection.
     */
    public static final int STREAM_WINDOW = 4 * 1024 * 1024;
    /** Datagrams one read may take (with epoll, in one recvmmsg call). */
    public static final int DATAGRAMS_PER_READ = 32;

    private UdpLimits() {
    }
}
