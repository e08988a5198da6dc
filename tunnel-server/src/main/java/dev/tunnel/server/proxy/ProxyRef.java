package dev.tunnel.server.proxy;

import dev.tunnel.protocol.relay.TrafficCounter;
import io.netty.channel.Channel;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * One running proxy as its public connections see it: the client's id for it (streams and work
 * connections name it), its name for log lines, its traffic (counted by the relays, read by the
 * dashboard from any thread) and its open public connections (closed when the client closes the
 * proxy). A {@link SessionLink} {@linkplain #track tracks} every public connection it carries.
 */
public final class ProxyRef {
    private final int id;
    private final String name;
    private final TrafficCounter traffic = new TrafficCounter();
    private final ChannelGroup connections;
    private volatile HAProxyProtocolVersion proxyProtocol;

    /**
     * @param id   the client's proxy id
     * @param name the qualified name ({@code user.name}), for log lines
     */
    public ProxyRef(int id, String name) {
        this.id = id;
        this.name = name;
        this.connections = new DefaultChannelGroup("proxy-" + name, GlobalEventExecutor.INSTANCE);
    }

    public int id() {
        return id;
    }

    public String name() {
        return name;
    }

    /**
     * {@code transport.proxyProtocolVersion}: the link sends the local app a PROXY protocol header
     * of this version before each connection's bytes; null = none.
     */
    public HAProxyProtocolVersion proxyProtocol() {
        return proxyProtocol;
    }

    /** Set by the proxy's type when it starts, before any connection. */
    public void proxyProtocol(HAProxyProtocolVersion version) {
        this.proxyProtocol = version;
    }

    public TrafficCounter traffic() {
        return traffic;
    }

    /** Counts {@code publicConn} as one of this proxy's connections until it closes. */
    public void track(Channel publicConn) {
        traffic.track(publicConn);
        connections.add(publicConn);
    }

    /** Closes the public connections this proxy carries now (the client removed the proxy). */
    public void closeConnections() {
        connections.close();
    }

    @Override
    public String toString() {
        return "proxy [" + name + "] (id " + id + ")";
    }
}
