package dev.tunnel.server;

import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.mux.MuxSession;
import io.netty.channel.ChannelFuture;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logged-in client on the server: its mux session and the public ports it registered.
 * Closing it (when the tunnel connection ends) releases every port at once.
 *
 * <p>Threading: runs on the session's event loop; bind results come back to that loop.
 */
final class ClientSession {
    private static final Logger log = LoggerFactory.getLogger(ClientSession.class);
    private static final int MAX_PICK_ATTEMPTS = 64;

    private final String id;
    private final String user;
    private final MuxSession mux;
    private final PortRegistry ports;
    private final PortQuota quota;
    private final String proxyBindAddr;
    private final int maxStreams;
    private final Map<Integer, ProxyListener> proxies = new HashMap<>();
    private final Map<Integer, Integer> reservedPorts = new HashMap<>();
    private boolean closed;

    /**
     * @param user       the client's user name ("" for none): proxies are named {@code user.name} in logs, and
     *                   every check and map here is per session, so no client can touch another's proxies
     * @param quota      the port rules of the client's account
     * @param maxStreams open public connections allowed at once; 0 = unlimited
     */
    ClientSession(String id, String user, MuxSession mux, PortRegistry ports, PortQuota quota, String proxyBindAddr,
                  int maxStreams) {
        this.id = id;
        this.user = user;
        this.mux = mux;
        this.ports = ports;
        this.quota = quota;
        this.proxyBindAddr = proxyBindAddr;
        this.maxStreams = maxStreams;
    }

    /** A proxy's name as logs show it: namespaced by the user, as frp does. */
    private String qualified(String name) {
        return user.isEmpty() ? name : user + "." + name;
    }

    String id() {
        return id;
    }

    /** Registers a proxy: reserves and binds its public port, then replies with the outcome. */
    void newProxy(NewProxy request, Consumer<NewProxyResult> reply) {
        if (!"tcp".equals(request.type())) {
            reply.accept(failed(request, "proxy type \"" + request.type() + "\" is not supported (supported: tcp)"));
            return;
        }
        if (proxies.containsKey(request.proxyId()) || proxies.values().stream().anyMatch(p -> p.name().equals(request.name()))) {
            reply.accept(failed(request, "proxy [" + request.name() + "] is already registered"));
            return;
        }
        if (request.remotePort() < 0 || request.remotePort() > 65535) {
            reply.accept(failed(request, "remotePort: " + request.remotePort() + " (expected: 0-65535)"));
            return;
        }
        if (request.remotePort() == 0 && quota.policy().candidates().length > 0) {
            int[] candidates = quota.policy().candidates();
            int start = ThreadLocalRandom.current().nextInt(candidates.length);
            pickAndBind(request, reply, candidates, start, 0);
            return;
        }
        String refused = ports.reserve(request.remotePort(), this, quota);
        if (refused != null) {
            reply.accept(failed(request, refused));
            return;
        }
        bind(request, request.remotePort(), reply, null);
    }

    private void pickAndBind(NewProxy request, Consumer<NewProxyResult> reply, int[] candidates, int start, int attempt) {
        for (; attempt < Math.min(MAX_PICK_ATTEMPTS, candidates.length); attempt++) {
            int port = candidates[(start + attempt) % candidates.length];
            if (!ports.isFree(port)) {
                continue;
            }
            String refused = ports.reserve(port, this, quota);
            if (refused == null) {
                int next = attempt + 1;
                bind(request, port, reply, () -> pickAndBind(request, reply, candidates, start, next));
                return;
            }
            if (refused.contains("maxPortsPerClient")) {
                reply.accept(failed(request, refused));
                return;
            }
        }
        reply.accept(failed(request, "no free port among the server's allowPorts"));
    }

    private void bind(NewProxy request, int port, Consumer<NewProxyResult> reply, Runnable onInUse) {
        ProxyListener listener = new ProxyListener(qualified(request.name()), request.proxyId(), mux, maxStreams);
        ChannelFuture bound = listener.bind(proxyBindAddr, port);
        bound.addListener(f -> mux.eventLoop().execute(() -> {
            if (!f.isSuccess()) {
                ports.release(port, this, quota);
                boolean inUse = BindFailures.addressInUse(f.cause());
                if (onInUse != null && inUse) {
                    onInUse.run();
                    return;
                }
                String reason = inUse
                        ? "port " + port + " is already in use on " + proxyBindAddr
                        : "failed to bind on [" + proxyBindAddr + ":" + port + "]: " + f.cause().getMessage();
                reply.accept(failed(request, reason));
                return;
            }
            if (closed) {
                listener.close();
                ports.release(port, this, quota);
                return;
            }
            int actual = listener.port();
            if (port == 0) {
                ports.bound(actual, this);
            }
            proxies.put(request.proxyId(), listener);
            reservedPorts.put(request.proxyId(), port == 0 ? actual : port);
            log.info("{} client {} proxy [{}] listening on {}:{}", mux.channel(), id, listener.name(), proxyBindAddr,
                    actual);
            reply.accept(new NewProxyResult(request.proxyId(), request.name(), actual, ""));
        }));
    }

    /** Closes one proxy's public port. */
    void closeProxy(int proxyId) {
        ProxyListener listener = proxies.remove(proxyId);
        if (listener != null) {
            listener.close();
            ports.release(reservedPorts.remove(proxyId), this, quota);
            log.info("{} client {} proxy [{}] closed", mux.channel(), id, listener.name());
        }
    }

    /** Releases every port of this client; called when its tunnel connection ends. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Integer proxyId : proxies.keySet().toArray(new Integer[0])) {
            closeProxy(proxyId);
        }
    }

    private NewProxyResult failed(NewProxy request, String reason) {
        log.warn("{} client {} proxy [{}] refused: {}", mux.channel(), id, qualified(request.name()), reason);
        return new NewProxyResult(request.proxyId(), request.name(), 0, reason);
    }
}
