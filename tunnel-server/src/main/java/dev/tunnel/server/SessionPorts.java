package dev.tunnel.server;

import dev.tunnel.server.proxy.PublicPorts;

/**
 * One session's view of the server's port registry, counted against its account's quota: a
 * TCP view and its UDP twin. Threading: as {@link PortRegistry} (any thread).
 */
final class SessionPorts implements PublicPorts {
    private final PortRegistry ports;
    private final Object owner;
    private final PortQuota quota;
    private final String bindAddr;
    private final boolean udp;
    private final SessionPorts udpPorts;

    private SessionPorts(PortRegistry ports, Object owner, PortQuota quota, String bindAddr, boolean udp,
                         SessionPorts udpPorts) {
        this.ports = ports;
        this.owner = owner;
        this.quota = quota;
        this.bindAddr = bindAddr;
        this.udp = udp;
        this.udpPorts = udpPorts;
    }

    /** The TCP view of {@code owner}'s ports ({@link #udp()} gives the UDP one). */
    static SessionPorts of(PortRegistry ports, Object owner, PortQuota quota, String bindAddr) {
        SessionPorts udp = new SessionPorts(ports, owner, quota, bindAddr, true, null);
        return new SessionPorts(ports, owner, quota, bindAddr, false, udp);
    }

    @Override
    public String reserve(int port) {
        return ports.reserve(port, udp, owner, quota);
    }

    @Override
    public void bound(int port) {
        ports.bound(port, udp, owner);
    }

    @Override
    public void release(int port) {
        ports.release(port, udp, owner, quota);
    }

    @Override
    public boolean allowed(int port) {
        return port == 0 || quota.policy().allowed(port);
    }

    @Override
    public boolean isFree(int port) {
        return ports.isFree(port, udp);
    }

    @Override
    public PublicPorts udp() {
        return udp ? this : udpPorts;
    }

    @Override
    public int[] candidates() {
        return quota.policy().candidates();
    }

    @Override
    public String bindAddr() {
        return bindAddr;
    }
}
