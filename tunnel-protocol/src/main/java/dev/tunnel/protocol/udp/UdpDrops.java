package dev.tunnel.protocol.udp;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;

/**
 * Counts the datagrams one proxy (or visitor) dropped, by reason, and logs them once per burst:
 * the first drop at once, then at most one line per 10 s with the counts since the last line
 * (the owner calls {@link #logPending()} periodically, so a burst's tail is logged too).
 * UDP may drop; what it must not do is buffer without bound or flood the log.
 *
 * <p>Threading: counted on the event loop that owns the proxy's sockets; the totals may be read
 * from any thread (the server's /metrics and API).
 */
public final class UdpDrops {
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Why a datagram was dropped. */
    public enum Reason {
        /** Longer than {@code udpPacketSize}. */
        OVERSIZE("longer than udpPacketSize"),
        /**
         * The association's entrance queue held {@link UdpLimits#ASSOCIATION_QUEUE} bytes waiting for its
         * stream (the tunnel connection over its watermark, its session paused for memory): the oldest went.
         */
        TUNNEL_FULL("tunnel queue full"),
        /** As {@link #TUNNEL_FULL}, while the stream was out of credit: the far side had not returned it yet. */
        NO_CREDIT("tunnel queue full, out of credit"),
        /** The socket the datagram goes out of had its outbound queue full. */
        SOCKET_FULL("socket queue full"),
        /** No association could be opened (no session, or the stream limit). */
        NO_ASSOCIATION("no association"),
        /** Over the proxy's {@code transport.bandwidthLimit} ({@link DatagramLimiter}). */
        BANDWIDTH("over bandwidthLimit"),
        /** The proxy's entrance queues together held {@link UdpLimits#PROXY_QUEUE} bytes: the association's oldest waiting went. */
        PROXY_FULL("proxy queue budget full");

        private final String text;

        Reason(String text) {
            this.text = text;
        }

        /** The reason as a metric label: {@code oversize}, {@code tunnel_full}, ... */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Logger log;
    private final String name;
    private final AtomicLongArray total = new AtomicLongArray(Reason.values().length);
    private final long[] sinceLog = new long[Reason.values().length];
    private long lastLogNanos = Long.MIN_VALUE;
    private boolean pending;
    private Object latestPeer;
    private volatile long totalDropped;

    /** @param name how log lines name the proxy or visitor, e.g. {@code proxy [dns]} */
    public UdpDrops(Logger log, String name) {
        this.log = log;
        this.name = name;
    }

    /** Counts one dropped datagram; logs if the quiet period has passed. Event loop only. */
    public void drop(Reason reason, Object peer) {
        total.incrementAndGet(reason.ordinal());
        sinceLog[reason.ordinal()]++;
        totalDropped++;
        latestPeer = peer;
        logIfQuiet(System.nanoTime());
    }

    /**
     * Logs the drops counted since the last line once the quiet period has passed: called
     * periodically, so that the tail of a burst is reported even when no drop follows it.
     * Event loop only.
     */
    public void logPending() {
        if (pending) {
            logIfQuiet(System.nanoTime());
        }
    }

    private void logIfQuiet(long now) {
        if (lastLogNanos == Long.MIN_VALUE || now - lastLogNanos >= QUIET_NANOS) {
            lastLogNanos = now;
            pending = false;
            StringBuilder counts = new StringBuilder();
            for (Reason r : Reason.values()) {
                if (sinceLog[r.ordinal()] > 0) {
                    counts.append(counts.length() == 0 ? "" : ", ").append(sinceLog[r.ordinal()]).append(' ').append(r.text);
                    sinceLog[r.ordinal()] = 0;
                }
            }
            log.warn("{} dropped datagrams ({}), latest from {}; {} dropped in all", name, counts, latestPeer, totalDropped);
        } else {
            pending = true;
        }
    }

    /** Why a datagram the stream would not queue was dropped: credit, or the connection. */
    static Reason tunnelFull(dev.tunnel.protocol.mux.MuxStream stream) {
        return stream.sendCredit() <= 0 ? Reason.NO_CREDIT : Reason.TUNNEL_FULL;
    }

    /** Datagrams dropped for {@code reason} so far; any thread. */
    public long count(Reason reason) {
        return total.get(reason.ordinal());
    }

    /** Datagrams dropped so far, for any reason; any thread. */
    public long total() {
        return totalDropped;
    }
}
