package dev.tunnel.client;

import dev.tunnel.client.proxy.StreamDialer;
import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamAcceptor;
import dev.tunnel.protocol.relay.StreamRelay;
import dev.tunnel.protocol.transport.Failures;
import dev.tunnel.runtime.BurstLog;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts the streams the server opens: connects to the proxy's local app (its type's
 * {@link dev.tunnel.client.proxy.LocalDialer}) and relays. The
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
 * <p>Threading: runs on the session's event loop; local connections are registered on it for
 * their whole life.
 */
final class LocalConnector implements StreamAcceptor {
    private static final Logger log = LoggerFactory.getLogger(LocalConnector.class);
    /** Local connections started per event-loop turn: a few milliseconds of connect work at most. */
    static final int CONNECTS_PER_TURN = 64;

    private final ProxyManager proxies;
    private final Map<Integer, BurstLog> failures = new HashMap<>();
    private final EventLoop eventLoop;
    private final ChannelGroup localConns;
    private final PacedStarts starts;
    private final int udpPacketSize;

    /** @param localConns every local connection joins it (the shutdown drain waits on it) */
    LocalConnector(ProxyManager proxies, EventLoop eventLoop, ChannelGroup localConns, int udpPacketSize) {
        this.udpPacketSize = udpPacketSize;
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
        if (proxy.dialer() instanceof StreamDialer datagrams) {
            datagrams.accept(stream, eventLoop, source, localConns, udpPacketSize);
            return;
        }
        StreamRelay relay = new StreamRelay(stream, proxy.traffic());
        starts.submit(() -> connect(relay, proxy, proxyId, source), () -> !stream.isClosed());
    }

    private void connect(StreamRelay relay, ProxyTarget proxy, int proxyId, String source) {
        ChannelFuture connecting = proxy.dialer().connect(eventLoop, relay).addListener(f -> {
            if (!f.isSuccess()) {
                relay.connectFailed();
                failures.computeIfAbsent(proxyId, id -> new BurstLog(log)).warn(
                        "proxy [{}] cannot reach local app {}: {} (public connection from {} closed)",
                        proxy.name(), proxy.dialer().describe(), Failures.describeConnect(f.cause(), proxy.dialer().describe()), source);
            }
        });
        localConns.add(connecting.channel());
        proxy.traffic().track(connecting.channel());
    }
}
