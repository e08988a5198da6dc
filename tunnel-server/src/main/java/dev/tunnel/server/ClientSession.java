package dev.tunnel.server;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.ConnectionProof;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.transport.LastWrites;
import dev.tunnel.server.plugin.NewProxyFields;
import dev.tunnel.server.plugin.PluginException;
import dev.tunnel.server.plugin.PluginOp;
import dev.tunnel.server.plugin.PluginRequests;
import dev.tunnel.server.plugin.ServerPlugins;
import dev.tunnel.server.plugin.UserInfo;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.web.ServerStats;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.PublicPorts;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.server.proxy.ServerProxyType;
import dev.tunnel.server.proxy.SessionLink;
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
 * A logged-in client on the server: its mux session, the proxies it started (each run by its
 * type from the {@link dev.tunnel.server.proxy.ServerProxyTypes} registry), its
 * {@link SessionLink} (mux or pool mode) and, in pool mode, its {@link WorkConnPool}. Closing
 * it (when the tunnel connection ends, the client says goodbye, or the same client logs in
 * again) releases every port at once.
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
    /** frp's clientID as the API shows it: the client's {@code clientID}, or its run id without one. */
    private final String clientId;
    /** The client's own {@code clientID}, "" when it set none. */
    private final String rawClientId;
    private final MuxSession mux;
    private final ServerContext server;
    private final WorkConnPool pool;
    private final SessionLink link;
    private final PublicPorts publicPorts;
    private final String loginNonce;
    private final SessionProxies proxies;
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
        this.clientId = rawClientId.isEmpty() ? runId : rawClientId;
        this.mux = mux;
        this.server = server;
        this.publicPorts = SessionPorts.of(server.ports(), this, quota, server.proxyBindAddr());
        this.proxies = new SessionProxies(server.names(), this, "client session " + id + " (run id " + runId + ")");
        this.pool = login.tcpMux() ? null : new WorkConnPool(mux.channel(), id, login.poolCount(), server.pool(),
                login.capabilities().contains(Capabilities.ISSUED_NONCES) ? new IssuedNonces() : null);
        StreamLimit limit = new StreamLimit(server.maxStreamsPerClient(), server.stats()::connectionRefused);
        SessionLink carrier = pool == null ? new MuxLink(mux, server.publicConns(), limit, server.caps())
                : new PoolLink(mux.channel(), pool, server.publicConns(), limit, server.caps());
        this.link = server.plugins().handles(PluginOp.NEW_USER_CONN)
                ? new UserConnGate(carrier, server.plugins(), this::userInfo, this::typeOf) : carrier;
    }

    /** A proxy's name as logs show it: namespaced by the user, as frp does. */
    private String qualified(String name) {
        return user.isEmpty() ? name : user + "." + name;
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
     * Starts a proxy through its type in the registry, then replies with the outcome. Requests
     * queued behind a ghost's eviction wait until its ports are released.
     */
    void newProxy(NewProxy request, Consumer<NewProxyResult> reply) {
        if (!heldRequests.isEmpty() || (ghostGone != null && !ghostGone.isDone())) {
            heldRequests.add(() -> startProxy(request, reply));
            return;
        }
        startProxy(request, reply);
    }

    private void startProxy(NewProxy request, Consumer<NewProxyResult> reply) {
        if (closed) {
            reply.accept(failed(request, "the session is closing"));
            return;
        }
        ServerProxyType type = server.types().get(request.type());
        if (type == null) {
            reply.accept(failed(request, "proxy type \"" + request.type() + "\" is not supported by this server"
                    + " (supported: " + String.join(", ", server.types().names()) + ")"));
            return;
        }
        SessionProxies.Refusal refusal = proxies.admit(request.proxyId(), qualified(request.name()), request.type());
        if (refusal != null) {
            reply.accept(failed(request, refusal.reason(), refusal.detail()));
            return;
        }
        if (!server.plugins().handles(PluginOp.NEW_PROXY)) {
            runProxy(type, request, reply);
            return;
        }
        String name = qualified(request.name());
        server.plugins().run(PluginOp.NEW_PROXY, PluginRequests.newProxy(userInfo(), name, request.type(),
                request.options()), mux.eventLoop()).addListener(f -> {
                    if (!f.isSuccess()) {
                        proxies.abandon(request.proxyId());
                        reply.accept(failed(request, PluginException.of(f.cause(), PluginOp.NEW_PROXY).clientMessage()));
                        return;
                    }
                    ServerPlugins.Outcome outcome = (ServerPlugins.Outcome) f.getNow();
                    NewProxy changed = request;
                    if (outcome.changed()) {
                        try {
                            changed = new NewProxy(request.proxyId(), request.name(), request.type(),
                                    NewProxyFields.apply(outcome.content(), name, request.type(), request.options()));
                        } catch (PluginException.BadContent e) {
                            proxies.abandon(request.proxyId());
                            reply.accept(failed(request, ServerPlugins.unusable(outcome.changedBy(), PluginOp.NEW_PROXY,
                                    e.getMessage()).clientMessage()));
                            return;
                        }
                    }
                    if (closed) {
                        proxies.abandon(request.proxyId());
                        reply.accept(failed(request, "the session is closing"));
                        return;
                    }
                    runProxy(type, changed, reply);
                });
    }

    /** Starts an admitted proxy, with its settings as the plugins left them. */
    private void runProxy(ServerProxyType type, NewProxy request, Consumer<NewProxyResult> reply) {
        ProxyRef proxy = new ProxyRef(request.proxyId(), qualified(request.name()));
        String refusal = ProxySettings.apply(proxy, request, server.stats().refusedVisitors());
        if (refusal != null) {
            proxies.abandon(request.proxyId());
            reply.accept(failed(request, refusal));
            return;
        }
        ProxyRequest start = new ProxyRequest(proxy, request.name(), request.type(), request.options());
        type.start(start, this).addListener(f -> {
            if (!f.isSuccess()) {
                proxies.abandon(request.proxyId());
                Throwable cause = f.cause();
                reply.accept(failed(request, cause instanceof ProxyRefusedException ? cause.getMessage()
                        : "cannot start: " + cause));
                return;
            }
            RunningProxy running = (RunningProxy) f.getNow();
            if (closed) {
                proxies.abandon(request.proxyId());
                running.close();
                return;
            }
            proxies.started(request.proxyId(), new SessionProxies.Running(request.name(), request.type(), proxy, running));
            server.stats().proxyOpened(proxy.name(), request.type(), user, clientId, running.remotePort(),
                    ProxySettings.labels(request.options()), new ServerStats.Counted(proxy));
            reply.accept(new NewProxyResult(request.proxyId(), request.name(), running.remotePort(), "",
                    running.details()));
        });
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

    /**
     * A refusal: logged with its reason; the client gets the reason, or frp's generic "new proxy
     * [NAME] error" with {@code detailedErrorsToClient = false}.
     */
    private NewProxyResult failed(NewProxy request, String reason) {
        return failed(request, reason, "");
    }

    /** A refusal whose log line adds {@code detail} to what the client is told. */
    private NewProxyResult failed(NewProxy request, String reason, String detail) {
        log.warn("{} {} proxy [{}] refused: {}{}", mux.channel(), label(), qualified(request.name()), reason, detail);
        String told = server.detailedErrors() ? reason : "new proxy [" + request.name() + "] error";
        return new NewProxyResult(request.proxyId(), request.name(), 0, told, Options.EMPTY);
    }
}
