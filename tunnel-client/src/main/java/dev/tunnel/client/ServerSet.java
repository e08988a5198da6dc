package dev.tunnel.client;

import dev.tunnel.client.config.ServerEndpoint;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.mux.MuxSession;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's servers and which of them it keeps a session with.
 *
 * <ul>
 * <li>{@code all} (and a single server): a session with every server, each with its own login,
 * reconnection and heartbeat; every proxy is registered on each.
 * <li>{@code failover}: the first server only; when its session is lost (its heartbeat timeout,
 * or the connection closing), the next server is connected at once, and so on. The servers
 * before the one in use keep trying to reconnect; when one of them logs in again, the sessions
 * after it are retired: their public ports close at once and their connections in flight get
 * {@code transport.drainTimeout} to finish.
 * </ul>
 *
 * <p>The first login: with {@code loginFailExit}, the client gives up only when every server
 * has failed its first login (with one server: when it fails).
 *
 * <h3>Threading</h3>
 * Any thread: sessions report from their event loops; the choices are made under this object's
 * lock, which is never held while a session's own lock is waited for by that session's caller
 * (sessions call in without holding theirs).
 */
final class ServerSet implements ServerSession.Events {
    private static final Logger log = LoggerFactory.getLogger(ServerSet.class);
    /** Backoff limit with several servers: a restarted server gets its sessions back within ~3 s. */
    static final int MULTI_MAX_BACKOFF_SECONDS = 2;
    private static final int SINGLE_MAX_BACKOFF_SECONDS = 20;

    private final List<ServerSession> sessions = new ArrayList<>();
    private final boolean failover;
    private final boolean loginFailExit;
    private final long drainMillis;
    private final CompletableFuture<Void> firstLogin;
    private final ProxyResults proxyResults;
    private final boolean[] failedOnce;

    ServerSet(List<ServerEndpoint> endpoints, boolean failover, boolean loginFailExit, long drainMillis,
              ServerDialer dialer, EventLoopGroup group, CompletableFuture<Void> firstLogin,
              ProxyResults proxyResults) {
        this.failover = failover && endpoints.size() > 1;
        this.loginFailExit = loginFailExit;
        this.drainMillis = drainMillis;
        this.firstLogin = firstLogin;
        this.proxyResults = proxyResults;
        this.failedOnce = new boolean[endpoints.size()];
        int backoff = endpoints.size() > 1 ? MULTI_MAX_BACKOFF_SECONDS : SINGLE_MAX_BACKOFF_SECONDS;
        for (int i = 0; i < endpoints.size(); i++) {
            sessions.add(new ServerSession(i, endpoints.get(i), dialer, group, backoff, this));
        }
    }

    /** Connects: to every server, or in failover mode to the first. */
    synchronized void start() {
        if (failover) {
            sessions.get(0).start();
        } else {
            sessions.forEach(ServerSession::start);
        }
    }

    /** Every server's session, in the order of the config. */
    List<ServerStatus> status() {
        return sessions.stream().map(ServerSession::status).toList();
    }

    /** The mux of the first session logged in, or null. */
    MuxSession firstMux() {
        for (ServerSession s : sessions) {
            MuxSession mux = s.mux();
            if (mux != null) {
                return mux;
            }
        }
        return null;
    }

    @Override
    public synchronized void loggedIn(ServerSession session) {
        firstLogin.complete(null);
        if (sessions.size() == 1) {
            proxyResults.clear();
        }
        if (!failover) {
            return;
        }
        for (ServerSession other : sessions) {
            if (other.index() < session.index() && other.isOnline()) {
                log.info("{} logged in behind {}, which is back: leaving it", session, other);
                session.retire(drainMillis);
                return;
            }
        }
        for (ServerSession later : sessions) {
            if (later.index() > session.index() && later.isRunning()) {
                log.info("failover: back on {}; leaving {} (its connections get {} ms to finish)", session, later,
                        drainMillis);
                later.retire(drainMillis);
            }
        }
    }

    @Override
    public synchronized boolean lost(ServerSession session, String reason) {
        if (!firstLogin.isDone()) {
            failedOnce[session.index()] = true;
            if (loginFailExit && allFailedOnce()) {
                log.error("login to {} failed: {}", sessions.size() > 1 ? "every server" : "server", reason);
                firstLogin.completeExceptionally(new IllegalStateException(reason));
                return true;
            }
        }
        if (failover && noneOnline() && isLastRunning(session)) {
            for (ServerSession next : sessions) {
                if (next.index() > session.index() && !next.isRunning()) {
                    log.warn("failover: {} is unreachable ({}); connecting to {}", session, reason, next);
                    next.start();
                    break;
                }
            }
        }
        return false;
    }

    @Override
    public void proxyResult(ServerSession session, NewProxyResult result) {
        proxyResults.accept(session, result);
    }

    /**
     * Tells every server this client leaves (each frees its ports; waits up to 2 s for their word)
     * and stops reconnecting. The connections stay open for the drain; {@link #close} ends them.
     */
    void goodbye() {
        List<CompletableFuture<Void>> released = sessions.stream().map(ServerSession::goodbye).toList();
        try {
            // a client started right after this one can then register the same ports at once
            CompletableFuture.allOf(released.toArray(CompletableFuture[]::new)).get(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            log.debug("not every server confirmed the release of this client's ports within 2 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes every connection once its last writes are out (bounded wait). */
    void close(long timeoutMillis) {
        for (ServerSession s : sessions) {
            ChannelFuture closing = s.close();
            if (closing != null) {
                closing.awaitUninterruptibly(timeoutMillis);
            }
        }
    }

    private boolean allFailedOnce() {
        for (boolean failed : failedOnce) {
            if (!failed) {
                return false;
            }
        }
        return true;
    }

    private boolean noneOnline() {
        return sessions.stream().noneMatch(ServerSession::isOnline);
    }

    private boolean isLastRunning(ServerSession session) {
        return sessions.stream().filter(ServerSession::isRunning).allMatch(s -> s.index() <= session.index());
    }
}
