package dev.tunnel.client;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamAcceptor;
import dev.tunnel.protocol.mux.StreamRelay;
import dev.tunnel.protocol.transport.Failures;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts the streams the server opens: connects to the proxy's local app and relays. The
 * stream's first bytes usually arrive before the local connection is up; the relay holds them.
 * If the local app is down the stream is reset (the public connection closes at once) and the
 * failure is logged once per burst, per proxy.
 *
 * <p>Pacing: one read of the tunnel connection can carry thousands of OPEN frames (a burst of
 * public connections), and the session's other streams wait behind whatever that read costs. At
 * most {@value #CONNECTS_PER_TURN} local connections start per event-loop turn
 * ({@link PacedStarts}); the others wait in order, their relays holding any early bytes, and a
 * stream reset meanwhile is never connected.
 *
 * <p>Threading: runs on the session's event loop; local connections are registered on it.
 */
final class LocalConnector implements StreamAcceptor {
    private static final Logger log = LoggerFactory.getLogger(LocalConnector.class);
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    /** Local connections started per event-loop turn: a few milliseconds of connect work at most. */
    static final int CONNECTS_PER_TURN = 64;

    private final Map<Integer, ProxyTarget> proxies;
    private final Map<Integer, BurstLog> failures = new HashMap<>();
    private final EventLoop eventLoop;
    private final ChannelGroup localConns;
    private final PacedStarts starts;
    private final UdpConnector udp;

    /** @param localConns every local connection joins it (the shutdown drain waits on it) */
    LocalConnector(Map<Integer, ProxyTarget> proxies, EventLoop eventLoop, ChannelGroup localConns, int udpPacketSize) {
        this.udp = new UdpConnector(eventLoop, localConns, udpPacketSize);
        this.proxies = proxies;
        this.eventLoop = eventLoop;
        this.localConns = localConns;
        this.starts = new PacedStarts(eventLoop, CONNECTS_PER_TURN);
    }

    @Override
    public void accept(MuxStream stream, int proxyId, String source) {
        ProxyTarget proxy = proxies.get(proxyId);
        if (proxy == null) {
            log.warn("server opened a stream for unknown proxy id {}: refused", proxyId);
            stream.reset(ResetCode.REFUSED);
            return;
        }
        if ("udp".equals(proxy.type()) || "sudp".equals(proxy.type())) {
            udp.connect(stream, proxyId, proxy.name(), proxy.local(), source);
            return;
        }
        StreamRelay relay = new StreamRelay(stream);
        starts.submit(() -> connect(relay, proxy, proxyId, source), () -> !stream.isClosed());
    }

    private void connect(StreamRelay relay, ProxyTarget proxy, int proxyId, String source) {
        io.netty.channel.ChannelFuture connecting = new Bootstrap()
                .group(eventLoop)
                .channel(Transports.socketChannel())
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                .handler(relay)
                .connect(proxy.local())
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        relay.connectFailed();
                        failures.computeIfAbsent(proxyId, id -> new BurstLog(log)).warn(
                                "proxy [{}] cannot reach local app {}: {} (public connection from {} closed)",
                                proxy.name(), proxy.local(), Failures.describe(f.cause()), source);
                    }
                });
        localConns.add(connecting.channel());
    }
}
