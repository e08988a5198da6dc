package dev.tunnel.server;

import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.Options;
import dev.tunnel.server.plugin.NewProxyFields;
import dev.tunnel.server.plugin.PluginException;
import dev.tunnel.server.plugin.PluginOp;
import dev.tunnel.server.plugin.PluginRequests;
import dev.tunnel.server.plugin.ServerPlugins;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.server.proxy.ServerProxyType;
import dev.tunnel.server.web.ServerStats;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the proxies a client session asks for ({@code NEW_PROXY}) and answers each: finds its
 * type in the {@link dev.tunnel.server.proxy.ServerProxyTypes} registry, admits it
 * ({@link SessionProxies}: unique name, at most {@code maxProxiesPerClient}), lets the server
 * plugins subscribed to NewProxy refuse or change it, applies its settings
 * ({@link ProxySettings}), starts it through its type, and records it as running. A proxy whose
 * session closed meanwhile is let go of, its port closed if it got one.
 *
 * <p>A refusal is logged with its reason; the client gets the reason, or frp's generic "new proxy
 * [NAME] error" with {@code detailedErrorsToClient = false}.
 *
 * <p>Threading: the session's event loop; plugin answers and bind results come back to it.
 */
final class ProxyStarter {
    /** Its lines are the session's: logged as the client session. */
    private static final Logger log = LoggerFactory.getLogger(ClientSession.class);

    private final ClientSession session;
    private final ServerContext server;
    private final SessionProxies proxies;
    /** frp's clientID as the API shows it, for the proxies' entries. */
    private final String clientId;

    ProxyStarter(ClientSession session, ServerContext server, SessionProxies proxies, String clientId) {
        this.session = session;
        this.server = server;
        this.proxies = proxies;
        this.clientId = clientId;
    }

    /** Starts the proxy {@code request} asks for, then replies with the outcome. */
    void start(NewProxy request, Consumer<NewProxyResult> reply) {
        if (session.isClosed()) {
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
            run(type, request, reply);
            return;
        }
        String name = qualified(request.name());
        server.plugins().run(PluginOp.NEW_PROXY, PluginRequests.newProxy(session.userInfo(), name, request.type(),
                request.options()), session.mux().eventLoop()).addListener(f -> {
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
                    if (session.isClosed()) {
                        proxies.abandon(request.proxyId());
                        reply.accept(failed(request, "the session is closing"));
                        return;
                    }
                    run(type, changed, reply);
                });
    }

    /** Starts an admitted proxy, with its settings as the plugins left them. */
    private void run(ServerProxyType type, NewProxy request, Consumer<NewProxyResult> reply) {
        ProxyRef proxy = new ProxyRef(request.proxyId(), qualified(request.name()));
        String refusal = ProxySettings.apply(proxy, request, server.stats().refusedVisitors());
        if (refusal != null) {
            proxies.abandon(request.proxyId());
            reply.accept(failed(request, refusal));
            return;
        }
        ProxyRequest start = new ProxyRequest(proxy, request.name(), request.type(), request.options());
        type.start(start, session).addListener(f -> {
            if (!f.isSuccess()) {
                proxies.abandon(request.proxyId());
                Throwable cause = f.cause();
                reply.accept(failed(request, cause instanceof ProxyRefusedException ? cause.getMessage()
                        : "cannot start: " + cause));
                return;
            }
            RunningProxy running = (RunningProxy) f.getNow();
            if (session.isClosed()) {
                proxies.abandon(request.proxyId());
                running.close();
                return;
            }
            proxies.started(request.proxyId(), new SessionProxies.Running(request.name(), request.type(), proxy, running));
            server.stats().proxyOpened(proxy.name(), request.type(), session.user(), clientId, running.remotePort(),
                    ProxySettings.labels(request.options()), new ServerStats.Counted(proxy));
            reply.accept(new NewProxyResult(request.proxyId(), request.name(), running.remotePort(), "",
                    running.details()));
        });
    }

    /** A proxy's name as logs show it: namespaced by the user, as frp does. */
    private String qualified(String name) {
        return session.user().isEmpty() ? name : session.user() + "." + name;
    }

    /** A refusal: logged with its reason; the client gets the reason, or the generic one (see the class). */
    private NewProxyResult failed(NewProxy request, String reason) {
        return failed(request, reason, "");
    }

    /** A refusal whose log line adds {@code detail} to what the client is told. */
    private NewProxyResult failed(NewProxy request, String reason, String detail) {
        log.warn("{} {} proxy [{}] refused: {}{}", session.mux().channel(), session.label(), qualified(request.name()),
                reason, detail);
        String told = server.detailedErrors() ? reason : "new proxy [" + request.name() + "] error";
        return new NewProxyResult(request.proxyId(), request.name(), 0, told, Options.EMPTY);
    }
}
