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

    private UdpLimits() {
    }
}
