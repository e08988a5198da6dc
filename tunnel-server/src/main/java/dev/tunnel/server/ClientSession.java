package dev.tunnel.server;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.ConnectionProof;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.transport.LastWrites;
import dev.tunnel.server.plugin.PluginOp;
import dev.tunnel.server.plugin.PluginRequests;
import dev.tunnel.server.plugin.UserInfo;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.PublicPorts;
import dev.tunnel.server.proxy.SessionLink;
import dev.tunnel.server.web.ServerStats;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.PromiseCombiner;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logged-in client on the server: its mux session, the proxies it started (each started by a
 * {@link ProxyStarter} and run by its type from the {@link dev.tunnel.server.proxy.ServerProxyTypes}
 * registry), its {@link SessionLink} (mux or pool mode) and, in pool mode, its {@link WorkConnPool}.
 * Closing it (when the tunnel connection ends, the client says goodbye, or the same client logs
 * in again) releases every port at once.
 *
 * <p>A session that replaces a ghost of the same client ({@link SessionRegistry}) holds its
 * proxy registrations until the ghost's ports are released, so they cannot collide with it.
 *
 * <p>Threading: runs on the session's event loop; bind results come back to that loop.
 */
final class ClientSession implements ProxySession {
    private static final Logger log = LoggerFactory.getLogger(ClientSession.class);

    private final String id;
    private final String user;
    /** The user the client logged in as: its work connection and visitor proofs are keyed with it. */
    private final String loginUser;
    private final Map<String, String> metas;
    private final String proofKey;
    private final String runId;
    /** The client's own {@code clientID}, "" when it set none. */
    private final String rawClientId;
    private final MuxSession mux;
    private final ServerContext server;
    private final WorkConnPool pool;
    private final SessionLink link;
    private final PublicPorts publicPorts;
    private final String loginNonce;
    private final SessionProxies proxies;
    private final ProxyStarter starter;
    private final ArrayDeque<Runnable> heldRequests = new ArrayDeque<>();
    private Future<?> ghostGone;
    private boolean closed;
    /** Completes once every proxy of the closed session has released its port; null while open. */
    private Future<Void> released;

    /**
     * @param login the client's login: its run id and transport mode, and the user its proofs are keyed with
     * @param user  the name the session goes by: the login's user, or the one a Login plugin gave it
     *              ("" for none; proxies are named {@code user.name} in logs, and every check and map
     *              here is per session, so no client can touch another's proxies)
     * @param metas the client's {@code metadatas} (or a Login plugin's), for the plugins
     * @param quota the port rules of the client's account
     * @param proofKey what keys its work connections' proofs: the account's token after a
     *                 token login, the session key after a PAKE login; never logged
     * @param loginNonce the server nonce its login answered (its visitors' proofs are bound to it)
     */
    ClientSession(String id, Login login, String user, Map<String, String> metas, MuxSession mux, ServerContext server,
                  PortQuota quota, String proofKey, String loginNonce) {
        this.id = id;
        this.loginNonce = loginNonce;
        this.user = user;
        this.loginUser = login.user();
        this.metas = Map.copyOf(metas);
        this.proofKey = proofKey;
        this.runId = login.runId();
        this.rawClientId = login.options().string("clientID", "");
        this.mux = mux;
        this.server = server;
        this.publicPorts = SessionPorts.of(server.ports(), this, quota, server.proxyBindAddr());
        this.proxies = new SessionProxies(server.names(), this, "client session " + id + " (run id " + runId + ")");
        // frp's clientID as the API shows it: the client's clientID, or its run id without one
        this.starter = new ProxyStarter(this, server, proxies, rawClientId.isEmpty() ? runId : rawClientId);
        this.pool = login.tcpMux() ? null : new WorkConnPool(mux.channel(), id, login.poolCount(), server.pool(),
                login.capabilities().contains(Capabilities.ISSUED_NONCES) ? new IssuedNonces() : null);
        StreamLimit limit = new StreamLimit(server.maxStreamsPerClient(), server.stats()::connectionRefused);
        SessionLink carrier = pool == null ? new MuxLink(mux, server.publicConns(), limit, server.caps())
                : new PoolLink(mux.channel(), pool, server.publicConns(), limit, server.caps());
        this.link = server.plugins().handles(PluginOp.NEW_USER_CONN)
                ? new UserConnGate(carrier, server.plugins(), this::userInfo, this::typeOf) : carrier;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String label() {
        return "client [" + (!rawClientId.isEmpty() ? rawClientId : !user.isEmpty() ? user : "run " + runId)
                + "] session " + id;
    }

    /** Whether the session closed: a proxy that finishes starting now is let go of. Session loop. */
    boolean isClosed() {
        return closed;
    }

    String runId() {
        return runId;
    }

    /** The {@code clientID} the client set, "" for none. */
    String rawClientId() {
        return rawClientId;
    }

    /** The user the session goes by ("" for none): the client's, or the one a Login plugin gave it. */
    @Override
    public String user() {
        return user;
    }

    /** The user the client logged in as: its visitors' proofs are keyed with it. */
    String loginUser() {
        return loginUser;
    }

    /**
     * Whether {@code proof} answers the challenge {@code serverNonce} sent on a further connection
     * of this session (a work connection): keyed with the session's proof key (the
     * account's token, or the PAKE login's session key) and the user the client logged in as, bound to this server's certificate {@code own} or, on a
     * connection without TLS, to none (a plaintext client binds to nothing, as a login may).
     */
    boolean proves(ConnectionProof kind, String serverNonce, String clientNonce, String proof, ChannelBinding own,
                   boolean connectionHasTls) {
        return kind.verify(proofKey, loginUser, id, serverNonce, clientNonce, own, proof) || !connectionHasTls
                && kind.verify(proofKey, loginUser, id, serverNonce, clientNonce, ChannelBinding.none(), proof);
    }

    /** Who this session is, as plugin calls name it. */
    UserInfo userInfo() {
        return new UserInfo(user, metas, runId);
    }

    /** The type of a started or starting proxy, or null. Session loop. */
    private String typeOf(ProxyRef proxy) {
        return proxies.typeOf(proxy.id());
    }

    /** The server nonce of this session's login challenge: its visitors' proofs cover it. */
    String loginNonce() {
        return loginNonce;
    }

    /** The session's multiplexer. */
    MuxSession mux() {
        return mux;
    }

    /** The work connection pool in pool mode, or null in mux mode. */
    WorkConnPool pool() {
        return pool;
    }

    /**
     * Call before the login result is written: registers the session (evicting a ghost), so that
     * a work connection the client opens as soon as it reads the result finds it.
     */
    void register() {
        ghostGone = server.sessions().register(this);
        if (!ghostGone.isDone()) {
            ghostGone.addListener(f -> mux.eventLoop().execute(this::releaseHeldRequests));
        }
    }

    /** Call once the login result was written: fills the pool. */
    void start() {
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

    /**
     * Starts a proxy ({@link ProxyStarter}), then replies with the outcome. Requests queued behind
     * a ghost's eviction wait until its ports are released.
     */
    void newProxy(NewProxy request, Consumer<NewProxyResult> reply) {
        if (!heldRequests.isEmpty() || (ghostGone != null && !ghostGone.isDone())) {
            heldRequests.add(() -> starter.start(request, reply));
            return;
        }
        starter.start(request, reply);
    }

    /**
     * The client closed one proxy ({@code CLOSE_PROXY}): its public side closes and so do the
     * public connections it carries. Unknown ids are ignored.
     */
    void closeProxy(int proxyId) {
        SessionProxies.Running proxy = closeProxy(proxyId, null);
        if (proxy != null) {
            log.info("{} {} proxy [{}] closed", mux.channel(), label(), proxy.ref().name());
            proxy.ref().closeConnections();
        }
    }

    /** Stops taking public traffic for one proxy; connections in flight go on. Returns it, or null. */
    private SessionProxies.Running closeProxy(int proxyId, PromiseCombiner closing) {
        SessionProxies.Running proxy = proxies.remove(proxyId);
        if (proxy != null) {
            Future<?> closed = proxy.proxy().close();
            if (closing != null) {
                closing.add(closed);
            }
            server.stats().proxyClosed(proxy.ref().name(), new ServerStats.Counted(proxy.ref()));
            if (server.plugins().handles(PluginOp.CLOSE_PROXY)) {
                server.plugins().notify(PluginOp.CLOSE_PROXY, PluginRequests.closeProxy(userInfo(), proxy.ref().name()),
                        mux.eventLoop());
            }
        }
        return proxy;
    }

    /** This session's running proxies and their traffic; any thread. */
    List<ProxyStatus> proxyStatus() {
        List<ProxyStatus> out = new ArrayList<>();
        for (SessionProxies.Running p : proxies.running()) {
            out.add(new ProxyStatus(id, user, p.name(), p.type(), p.proxy().remotePort(), p.ref().traffic().snapshot()));
        }
        return out;
    }

    // ---- ProxySession ----

    @Override
    public SessionLink link() {
        return link;
    }

    @Override
    public PublicPorts ports() {
        return publicPorts;
    }

    /**
     * Releases every port of this client and closes its pool's idle connections; connections in
     * flight go on. Called when its tunnel connection ends or the client says goodbye. Returns a
     * future that completes once every public listener is closed. Session loop only.
     */
    Future<Void> close() {
        server.sessions().unregister(this);
        if (released != null) {
            return released; // a second close (an eviction after the connection dropped) waits for the first
        }
        closed = true;
        Promise<Void> done = mux.eventLoop().newPromise();
        released = done;
        server.stats().clientOffline(runId, id);
        proxies.abandonStarting();
        heldRequests.clear();
        if (pool != null) {
            pool.close();
        }
        PromiseCombiner closing = new PromiseCombiner(mux.eventLoop());
        List<Integer> running = proxies.runningIds();
        Batches.run(mux.eventLoop(), running, proxyId -> closeProxy(proxyId, closing), () -> {
            log.info("{} {}: its {} proxies closed", mux.channel(), label(), running.size());
            closing.finish(done);
        });
        return done;
    }

    /**
     * The client announced it is leaving: release its ports now (any thread). The future
     * completes once every public listener is closed.
     */
    Future<Void> goodbye(String reason) {
        Promise<Void> released = mux.eventLoop().newPromise();
        mux.eventLoop().execute(() -> {
            log.info("{} {} is leaving ({}): its ports are released", mux.channel(), label(), reason);
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

    /** Closes the client's connection once what its loop has queued (the last streams' FINs) is written. */
    void closeConnection() {
        LastWrites.flushThenClose(mux.channel(), LastWrites.TIMEOUT_MILLIS);
    }
}
