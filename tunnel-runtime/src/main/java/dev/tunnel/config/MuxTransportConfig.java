package dev.tunnel.config;

import java.util.List;

/**
 * The {@code [transport]} keys of the tunnel connection that frps.toml and frpc.toml share: the
 * mux keepalive, the receive windows, socket buffers, event-loop threads and the I/O transport.
 * Each side's table extends this with its own keys.
 */
public class MuxTransportConfig {
    /** What a side logs when the file sets {@link #tcpMuxExpressLane}. */
    public static final String EXPRESS_LANE_IGNORED = "transport.tcpMuxExpressLane is ignored: a session carries"
            + " every stream on one connection and sends sparse streams first; remove the key";
    /** The largest per-stream receive window either side accepts, in bytes. */
    public static final int MAX_WINDOW = 1_073_741_824;

    /** Seconds between mux keepalive pings (> 0). */
    public int tcpMuxKeepaliveInterval = 30;
    /** Tunnel extension: initial per-stream receive window in bytes (65536..1073741824). */
    public int tcpMuxInitialWindow = 262_144;
    /** Tunnel extension: largest per-stream receive window in bytes (>= initial, <= 1073741824). */
    public int tcpMuxMaxWindow = 16_777_216;
    /**
     * Tunnel extension: receive budget of one session in bytes, the sum of its streams' windows
     * (1048576..1099511627776, and >= tcpMuxInitialWindow).
     */
    public long tcpMuxSessionWindow = 33_554_432L;
    /**
     * Tunnel extension: process-wide cap on receive windows in bytes; 0 = half the JVM's max
     * direct memory, else 1048576..1099511627776.
     */
    public long tcpMuxMemoryLimit = 0;
    /** Tunnel extension: SO_SNDBUF in bytes; 0 = OS default, else 4096..67108864. */
    public int sendBufferSize = 0;
    /** Tunnel extension: SO_RCVBUF in bytes; 0 = OS default, else 4096..67108864. */
    public int receiveBufferSize = 0;
    /** Tunnel extension: event-loop threads (0..256); 0 = one per available core. */
    public int eventLoopThreads = 0;
    /**
     * Accepted and ignored, with a warning ({@link #EXPRESS_LANE_IGNORED}), so that files written
     * for releases with a second connection per session still load. Null when the file does not set it.
     */
    public Boolean tcpMuxExpressLane;
    /** Tunnel extension: io_uring for all sockets: on (required; not with tcpMux = false), off or auto (epoll for now). */
    public String ioUring = "auto";

    /**
     * Checks these keys; {@code prefix} is the table's key ("transport").
     *
     * @param maxThreads    the most event-loop threads the transport takes
     * @param ioUringValues what {@code ioUring} accepts
     */
    public void validate(String prefix, ValueChecks checks, int maxThreads, List<String> ioUringValues) {
        checks.atLeast(prefix + ".tcpMuxKeepaliveInterval", tcpMuxKeepaliveInterval, 1);
        if (checks.range(prefix + ".tcpMuxInitialWindow", tcpMuxInitialWindow, 65_536, MAX_WINDOW)) {
            checks.range(prefix + ".tcpMuxMaxWindow", tcpMuxMaxWindow, tcpMuxInitialWindow, MAX_WINDOW);
            checks.range(prefix + ".tcpMuxSessionWindow", tcpMuxSessionWindow,
                    Math.max(1L << 20, tcpMuxInitialWindow), 1L << 40);
        }
        if (tcpMuxMemoryLimit != 0) {
            checks.range(prefix + ".tcpMuxMemoryLimit", tcpMuxMemoryLimit, 1L << 20, 1L << 40);
        }
        checks.bufferSize(prefix + ".sendBufferSize", sendBufferSize);
        checks.bufferSize(prefix + ".receiveBufferSize", receiveBufferSize);
        checks.range(prefix + ".eventLoopThreads", eventLoopThreads, 0, maxThreads);
        checks.oneOf(prefix + ".ioUring", ioUring, ioUringValues, List.of());
    }
}
