package dev.tunnel.server.proxy;

/**
 * The public ports of one client session, held to its account's {@code allowPorts} and
 * {@code maxPortsPerClient}. Session loop only; a port reserved must be released once.
 */
public interface PublicPorts {

    /**
     * Reserves {@code port} (0 = the OS picks at bind, then {@link #bound}).
     *
     * @return null on success, or why not (for the client)
     */
    String reserve(int port);

    /** Records the port the OS picked for a reservation of port 0. */
    void bound(int port);

    /** Gives back a reservation of {@code port} (0 for an unbound reservation of port 0). */
    void release(int port);

    /** Whether the account's {@code allowPorts} lets it use {@code port} (0: the server picks). */
    boolean allowed(int port);

    /** Whether nobody on this server holds {@code port}. */
    boolean isFree(int port);

    /** The allowed ports to try, in order, for a proxy that asks for none; empty = let the OS pick. */
    int[] candidates();

    /** The address public ports bind on ({@code proxyBindAddr}). */
    String bindAddr();

    /**
     * The session's UDP ports: a space apart from the TCP ones, as in frp (a tcp and a udp proxy
     * may share a number), held to the same rules and counted against the same quota.
     */
    PublicPorts udp();
}
