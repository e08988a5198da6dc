package dev.tunnel.server;

import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.transport.LastWrites;
import io.netty.channel.ChannelFuture;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.PromiseCombiner;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logged-in client on the server: its mux session, the public ports it registered and, in
 * pool mode, its {@link WorkConnPool}. Closing it (when the tunnel connection ends, the client
 * says goodbye, or the same client logs in again) releases every port at once.
 *
 * <p>A session that replaces a ghost of the same client ({@link SessionRegistry}) holds its
 * proxy registrations until the ghost's ports are released, so they cannot collide with it.
 *
 * <p>Threading: runs on the session's event loop; bind results come back to that loop.
 */
final class ClientSession {
    private static final Logger log = LoggerFactory.getLogger(ClientSession.class);
    private static final int MAX_PICK_ATTEMPTS = 64;

    private final String id;
    private final String user;
    private final String token;
    private final String runId;
    private final MuxSession mux;
    private final ServerContext server;
    private final PortRegistry ports;
    private final PortQuota quota;
    private final String proxyBindAddr;
    private final int maxStreams;
    private final WorkConnPool pool;
    private final Map<Integer, ProxyListener> proxies = new HashMap<>();
    private final Map<Integer, Integer> reservedPorts = new HashMap<>();
    private final ArrayDeque<Runnable> heldRequests = new ArrayDeque<>();
    private Future<?> ghostGone;
    private boolean closed;

    /**
     * @param login the client's login: its user ("" for none; proxies are named {@code user.name} in
     *              logs, and every check and map here is per session, so no client can touch
     *              another's proxies), run id and transport mode
     * @param quota the port rules of the client's account
     * @param token the token of the client's account (keys its work connections' proofs; never logged)
     */
    ClientSession(String id, Login login, MuxSession mux, ServerContext server, PortQuota quota, String token) {
        this.id = id;
        this.user = login.user();
        this.token = token;
        this.runId = login.runId();
        this.mux = mux;
        this.server = server;
        this.ports = server.ports();
        this.quota = quota;
        this.proxyBindAddr = server.proxyBindAddr();
        this.maxStreams = server.maxStreamsPerClient();
        this.pool = login.tcpMux() ? null : new WorkConnPool(mux.channel(), id, login.poolCount(), server.pool());
    }

    /** A proxy's name as logs show it: namespaced by the user, as frp does. */
    private String qualified(String name) {
        return user.isEmpty() ? name : user + "." + name;
    }

    String id() {
        return id;
    }

    String runId() {
        return runId;
    }

    /** The work connection pool in pool mode, or null in mux mode. */
    /** The user the client logged in as ("" for none). */
    String user() {
        return user;
    }

    /** The token of the session's account: work connection proofs are keyed with it. A secret. */
    String token() {
        return token;
    }

    WorkConnPool pool() {
        return pool;
    }

    /** Call once the login result was sent: registers the session (evicting a ghost) and fills the pool. */
    void start() {
        ghostGone = server.sessions().register(this);
        if (!ghostGone.isDone()) {
            ghostGone.addListener(f -> mux.eventLoop().execute(this::releaseHeldRequests));
        }
        if (pool != null) {
            pool.start();
        }
    }

    private void releaseHeldRequests() {
        Runnable request;
        while ((request = heldRequests.poll()) != null) {
            request.run();
        }
    }

    /** Registers a proxy: reserves and binds its public port, then replies with the outcome. */
    void newProxy(NewProxy request, Consumer<NewProxyResult> reply) {
        if (!heldRequests.isEmpty() || (ghostGone != null && !ghostGone.isDone())) {
            heldRequests.add(() -> registerProxy(request, reply));
            return;
        }
        registerProxy(request, reply);
    }

    private void registerProxy(NewProxy request, Consumer<NewProxyResult> reply) {
        if (closed) {
            reply.accept(failed(request, "the session is closing"));
            return;
        }
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
        ProxyListener listener = new ProxyListener(qualified(request.name()), request.proxyId(), mux, maxStreams, pool,
                server.publicConns(), server.stats());
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
            server.stats().proxyOpened(listener.name(), request.type(), user, runId, actual, null);
            reply.accept(new NewProxyResult(request.proxyId(), request.name(), actual, ""));
        }));
    }

    /** Closes one proxy's public port. */
    void closeProxy(int proxyId) {
        closeProxy(proxyId, null);
    }

    private void closeProxy(int proxyId, PromiseCombiner closing) {
        ProxyListener listener = proxies.remove(proxyId);
        if (listener != null) {
            ChannelFuture closed = listener.close();
            if (closing != null && closed != null) {
                closing.add(closed);
            }
            ports.release(reservedPorts.remove(proxyId), this, quota);
            server.stats().proxyClosed(listener.name(), null);
            log.info("{} client {} proxy [{}] closed", mux.channel(), id, listener.name());
        }
    }

    /**
     * Releases every port of this client and closes its pool's idle connections; connections in
     * flight go on. Called when its tunnel connection ends or the client says goodbye. Returns a
     * future that completes once every public listener is closed. Session loop only.
     */
    Future<Void> close() {
        Promise<Void> done = mux.eventLoop().newPromise();
        server.sessions().unregister(this);
        if (closed) {
            return done.setSuccess(null);
        }
        closed = true;
        server.stats().clientOffline(runId, id);
        PromiseCombiner closing = new PromiseCombiner(mux.eventLoop());
        for (Integer proxyId : proxies.keySet().toArray(new Integer[0])) {
            closeProxy(proxyId, closing);
        }
        heldRequests.clear();
        if (pool != null) {
            pool.close();
        }
        closing.finish(done);
        return done;
    }

    /**
     * The client announced it is leaving: release its ports now (any thread). The future
     * completes once every public listener is closed.
     */
    Future<Void> goodbye(String reason) {
        Promise<Void> released = mux.eventLoop().newPromise();
        mux.eventLoop().execute(() -> {
            log.info("{} client session {} is leaving ({}): its ports are released", mux.channel(), id, reason);
            close().addListener(f -> released.setSuccess(null));
        });
        return released;
    }

    /**
     * This session is a ghost of a client that logged in again: release its ports, close its
     * connection. Any thread; the future completes once its listeners are closed.
     */
    Future<?> evict(String why) {
        Promise<Void> done = mux.eventLoop().newPromise();
        mux.eventLoop().execute(() -> {
            log.info("{} closing session {}: {}", mux.channel(), id, why);
            close().addListener(f -> done.setSuccess(null));
            mux.channel().close();
        });
        return done;
    }

    /** Stops accepting public connections (server shutdown); any thread. */
    void stopAccepting() {
        mux.eventLoop().execute(this::close);
    }

    /** Closes the tunnel connection (after the drain); any thread. */
    /** Closes the client's connection once what its loop has queued (the last streams' FINs) is written. */
    void closeConnection() {
        LastWrites.flushThenClose(mux.channel(), LastWrites.TIMEOUT_MILLIS);
    }

    private NewProxyResult failed(NewProxy request, String reason) {
        log.warn("{} client {} proxy [{}] refused: {}", mux.channel(), id, qualified(request.name()), reason);
        return new NewProxyResult(request.proxyId(), request.name(), 0, reason);
    }
}
