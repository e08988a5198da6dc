package dev.tunnel.server;

import io.netty.util.NetUtil;

/** Settings shared by the server's listening sockets: the tunnel port and every public port. */
public final class Listeners {

    /**
     * Accept queue length: as deep as the kernel allows ({@code net.core.somaxconn}, 4096 on
     * current Linux). A public port's listener shares its event loop with the session's streams,
     * so during a burst of new connections the loop may not accept for a moment; connections that
     * find the queue full are not refused but stall in SYN-ACK retransmits (1 s, 3 s, 7 s...),
     * which is where a 1024-deep queue put the seconds-long tail of the 20,000-connection bench.
     */
    public static final int BACKLOG = NetUtil.SOMAXCONN;

    private Listeners() {
    }
}
