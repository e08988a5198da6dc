package dev.tunnel.server;

import dev.tunnel.server.inbound.VisitorAddress;
import dev.tunnel.server.proxy.ProxyRef;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code transport.maxConnectionsPerProxy} and {@code transport.maxConnectionsPerIP}: how many
 * public connections one proxy may carry at once, and how many one remote address may hold at
 * once over all the server's proxies. A connection beyond either is refused before anything is
 * sent to the client; refusals are counted ({@code onRefused}) and logged the first time, then
 * once per 10 s with the count (a flood must not flood the log).
 *
 * <p>Thread-safe: one instance per server, used from every session loop.
 */
public final class ConnectionCaps {
    private static final Logger log = LoggerFactory.getLogger(ConnectionCaps.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final int perProxy;
    private final int perIp;
    private final Runnable onRefused;
    private final ConcurrentHashMap<InetAddress, Integer> openPerIp = new ConcurrentHashMap<>();
    private long lastLogNanos = Long.MIN_VALUE;
    private int refusedSinceLog;

    /**
     * @param perProxy  open public connections one proxy may carry; 0 = no limit
     * @param perIp     open public connections one remote address may hold; 0 = no limit
     * @param onRefused counts each refusal (the dashboard's and /metrics' refused connections)
     */
    public ConnectionCaps(int perProxy, int perIp, Runnable onRefused) {
        this.perProxy = perProxy;
        this.perIp = perIp;
        this.onRefused = onRefused;
    }

    /** No caps. */
    public static ConnectionCaps none() {
        return new ConnectionCaps(0, 0, () -> { });
    }

    /**
     * Whether {@code publicConn} may be carried for {@code proxy}; when it may, it counts against
     * its address until it closes. Call last, right before the connection is carried.
     */
    boolean admit(Channel control, Channel publicConn, ProxyRef proxy) {
        if (perProxy > 0 && proxy.openConnections() >= perProxy) {
            refused(control, proxy, VisitorAddress.of(publicConn), "the proxy already carries " + proxy.openConnections()
                    + " connections (transport.maxConnectionsPerProxy = " + perProxy + ")");
            return false;
        }
        InetAddress ip = VisitorAddress.ipOf(publicConn);
        if (perIp > 0 && ip != null) {
            boolean[] admitted = new boolean[1];
            openPerIp.compute(ip, (k, open) -> {
                int n = open == null ? 0 : open;
                if (n >= perIp) {
                    return open;
                }
                admitted[0] = true;
                return n + 1;
            });
            if (!admitted[0]) {
                refused(control, proxy, VisitorAddress.of(publicConn), "that address already holds " + perIp
                        + " connections (transport.maxConnectionsPerIP = " + perIp + ")");
                return false;
            }
            publicConn.closeFuture().addListener(f -> openPerIp.computeIfPresent(ip, (k, n) -> n > 1 ? n - 1 : null));
        }
        return true;
    }

    /** Open connections counted for {@code ip} now (tests, metrics). */
    int openFrom(InetAddress ip) {
        return openPerIp.getOrDefault(ip, 0);
    }

    private void refused(Channel control, ProxyRef proxy, SocketAddress peer, String why) {
        onRefused.run();
        int count;
        synchronized (this) {
            refusedSinceLog++;
            long now = System.nanoTime();
            if (lastLogNanos != Long.MIN_VALUE && now - lastLogNanos < LOG_INTERVAL_NANOS) {
                return;
            }
            lastLogNanos = now;
            count = refusedSinceLog;
            refusedSinceLog = 0;
        }
        log.warn("{} {} refused {} public connection(s), latest from {}: {}", control, proxy, count, peer, why);
    }
}
