package dev.tunnel.client;

import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers' answers to the proxies' registrations: the latest per proxy (from whichever
 * server answered last, when there are several), logged as they come.
 *
 * <p>Threading: any thread (a concurrent map).
 */
final class ProxyResults {
    private static final Logger log = LoggerFactory.getLogger(ProxyResults.class);

    private final ProxyManager proxies;
    private final Map<String, TunnelClient.ProxyStatus> status = new ConcurrentHashMap<>();

    ProxyResults(ProxyManager proxies) {
        this.proxies = proxies;
    }

    /** A server answered a registration (called on the session's event loop). */
    void accept(ServerSession session, NewProxyResult result) {
        ProxyTarget proxy = proxies.get(result.proxyId());
        if (proxy == null || !proxy.name().equals(result.name())) {
            return; // the answer for a proxy removed meanwhile
        }
        status.put(result.name(), new TunnelClient.ProxyStatus(result.remotePort(), result.error()));
        if (result.ok()) {
            log.info("proxy [{}] started: public port {} on {}", result.name(), result.remotePort(), session);
        } else {
            log.error("proxy [{}] start error on {}: {}", result.name(), session, result.error());
        }
    }

    TunnelClient.ProxyStatus get(String name) {
        return status.get(name);
    }

    /** Forgets every answer (a single server's new session answers afresh). */
    void clear() {
        status.clear();
    }

    void forget(String name) {
        status.remove(name);
    }

    /** Waits for proxy {@code name} to be registered and returns its public port. */
    int awaitRemotePort(String name, Duration timeout, CompletableFuture<Void> firstLogin)
            throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            TunnelClient.ProxyStatus s = status.get(name);
            if (s != null) {
                if (!s.ok()) {
                    throw new IllegalStateException("proxy [" + name + "] refused: " + s.error());
                }
                return s.remotePort();
            }
            if (firstLogin.isCompletedExceptionally()) {
                firstLogin.join();
            }
            Thread.sleep(10);
        }
        throw new TimeoutException("proxy [" + name + "] not registered within " + timeout);
    }
}
