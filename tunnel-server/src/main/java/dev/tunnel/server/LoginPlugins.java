package dev.tunnel.server;

import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.server.plugin.LoginChange;
import dev.tunnel.server.plugin.PluginException;
import dev.tunnel.server.plugin.PluginOp;
import dev.tunnel.server.plugin.PluginRequests;
import dev.tunnel.server.plugin.ServerPlugins;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.Map;

/**
 * The server plugins' say on a login whose proof was checked: the plugins subscribed to Login may
 * refuse it, or give the session another {@code user} and other {@code metas}. A plugin may rename
 * a client that logged in with the shared token (its name only namespaces its proxies, as in frp),
 * but not a {@code [[users]]} entry, nor to one: those names are bound to their own token and rules.
 *
 * <p>Threading: the connection's event loop.
 */
final class LoginPlugins {

    /** What a session goes by: the client's user and metas, or those a plugin gave it. */
    record Identity(String user, Map<String, String> metas) {
        boolean renamedFrom(Login login) {
            return !user.equals(login.user());
        }
    }

    private LoginPlugins() {
    }

    /**
     * The identity the session of {@code login} on {@code channel} takes. Without a Login plugin
     * the future is done at once; otherwise it completes on the channel's loop, or fails with a
     * {@link PluginException} (logged) that says why the login is refused.
     */
    static Future<Identity> ask(ServerContext server, Channel channel, Login login) {
        Identity asSent = new Identity(login.user(), login.options().map("metadatas"));
        if (!server.plugins().handles(PluginOp.LOGIN)) {
            return channel.eventLoop().newSucceededFuture(asSent);
        }
        Promise<Identity> identity = channel.eventLoop().newPromise();
        server.plugins().run(PluginOp.LOGIN, PluginRequests.login(login, channel.remoteAddress()), channel.eventLoop())
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        identity.setFailure(PluginException.of(f.cause(), PluginOp.LOGIN));
                        return;
                    }
                    ServerPlugins.Outcome outcome = (ServerPlugins.Outcome) f.getNow();
                    if (!outcome.changed()) {
                        identity.setSuccess(asSent);
                        return;
                    }
                    try {
                        LoginChange change = LoginChange.of(outcome.content());
                        checkRename(server.credentials(), login.user(), change.user());
                        identity.setSuccess(new Identity(change.user(), change.metas()));
                    } catch (PluginException.BadContent e) {
                        identity.setFailure(ServerPlugins.unusable(outcome.changedBy(), PluginOp.LOGIN, e.getMessage()));
                    }
                });
        return identity;
    }

    private static void checkRename(Credentials credentials, String from, String to) throws PluginException.BadContent {
        if (from.equals(to)) {
            return;
        }
        String shown = LogText.printable(to);
        if (credentials.listed(from)) {
            throw new PluginException.BadContent("user \"" + from + "\" is a [[users]] entry, bound to its token;"
                    + " it cannot be renamed to \"" + shown + "\"");
        }
        if (credentials.listed(to)) {
            throw new PluginException.BadContent("\"" + to + "\" is a [[users]] entry, which logs in with its own token");
        }
        if (to.length() > 128 || to.codePoints().anyMatch(c -> Character.isISOControl(c) || Character.isWhitespace(c))) {
            throw new PluginException.BadContent("user \"" + shown + "\" (expected: at most 128 characters,"
                    + " no spaces or control characters)");
        }
    }
}
