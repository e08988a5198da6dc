package dev.tunnel.server.proxy;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.relay.ReadLimiter;
import dev.tunnel.protocol.relay.TokenBucket;
import dev.tunnel.protocol.relay.TrafficCounter;
import dev.tunnel.protocol.udp.UdpDrops;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * One running proxy as its public connections see it: the client's id for it (streams and work
 * connections name it), its name for log lines, its traffic (counted by the relays, read by the
 * dashboard from any thread) and its open public connections (closed when the client closes the
 * proxy). A {@link SessionLink} {@linkplain #track tracks} every public connection it carries,
 * and each gets its line in the log when it closes ({@link ConnectionLog}).
 */
public final class ProxyRef {
    private final int id;
    private final String name;
    private final TrafficCounter traffic = new TrafficCounter();
    private final ChannelGroup connections;
    private volatile HAProxyProtocolVersion proxyProtocol;
    private volatile TokenBucket bandwidth;
    private volatile UdpDrops datagramDrops;
    private volatile VisitorRules visitorRules = VisitorRules.NONE;

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

    /**
     * {@code transport.bandwidthLimitMode = "server"}: every public connection of the proxy reads
     * through this bucket; null = not limited here. Set by the session before the proxy starts.
     */
    public void bandwidth(TokenBucket bucket) {
        this.bandwidth = bucket;
    }

    /** {@code allowIPs}, {@code denyIPs}, {@code maxNewConnsPerIPPerMinute}: set by the session before the proxy starts. */
    public void visitorRules(VisitorRules rules) {
        this.visitorRules = rules;
    }

    /**
     * Whether the proxy's {@link VisitorRules} let a visitor from {@code peer} in: ask before
     * anything of it goes to the client (a refusal is counted and logged).
     *
     * @param what what the visitor opened, for the log line
     */
    public boolean admitsVisitor(java.net.SocketAddress peer, String what) {
        return visitorRules.admits(peer, what);
    }

    /** The {@code bandwidthLimitMode = "server"} bucket; null = not limited on the server. */
    public TokenBucket bandwidth() {
        return bandwidth;
    }

    public TrafficCounter traffic() {
        return traffic;
    }

    /** The datagrams a proxy of a UDP type dropped, by reason; null for other types. */
    public UdpDrops datagramDrops() {
        return datagramDrops;
    }

    /** Set by a UDP type when its socket is bound. */
    public void datagramDrops(UdpDrops drops) {
        this.datagramDrops = drops;
    }

    /**
     * Counts {@code publicConn} as one of this proxy's connections until it closes, and paces its
     * reads by the proxy's bandwidth limit, if any. A keep-alive HTTP connection routed to
     * another proxy is paced by that one's limit from then on.
     */
    public void track(Channel publicConn) {
        traffic.track(publicConn);
        connections.add(publicConn);
        TokenBucket bucket = bandwidth;
        ChannelPipeline pipeline = publicConn.pipeline();
        if (pipeline.get(TunnelPipeline.BANDWIDTH) != null) {
            pipeline.remove(TunnelPipeline.BANDWIDTH);
        }
        if (bucket != null) {
            pipeline.addFirst(TunnelPipeline.BANDWIDTH, new ReadLimiter(bucket));
        }
        ConnectionLog.carries(publicConn, name);
    }

    /** Public connections this proxy carries now. */
    public int openConnections() {
        return connections.size();
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
