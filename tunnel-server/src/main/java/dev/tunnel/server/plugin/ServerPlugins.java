package dev.tunnel.server.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tunnel.runtime.BurstLog;
import dev.tunnel.server.config.ServerConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's {@code [[httpPlugins]]}, as frp's plugin manager: for each op, the plugins that
 * subscribed to it, called one after the other in the order of the config. The first rejection
 * or failure ends the chain and refuses the operation; a plugin that changes the content hands
 * its content to the next one, and the last content is what the server applies.
 * {@link PluginOp#CLOSE_PROXY} is a notification: every subscriber is told, failures are only
 * logged.
 *
 * <p>An op no plugin subscribed to costs nothing: callers check {@link #handles} and skip the
 * call entirely (a public connection of a tcp proxy then waits for no round trip).
 *
 * <p>Threading: thread-safe; results come back on the executor the caller passes.
 */
public final class ServerPlugins {
    private static final Logger log = LoggerFactory.getLogger(ServerPlugins.class);

    /** No plugins: every op passes unchanged without a call. */
    public static final ServerPlugins NONE = new ServerPlugins(List.of());

    private final Map<PluginOp, List<HttpPlugin>> byOp = new EnumMap<>(PluginOp.class);
    private final BurstLog failures = new BurstLog(log);

    /**
     * What a chain let through.
     *
     * @param content   what to apply: the last replacement, or the request's own content
     * @param changedBy the plugin whose replacement {@code content} is, or null when none changed it
     */
    public record Outcome(JsonNode content, String changedBy) {
        public boolean changed() {
            return changedBy != null;
        }
    }

    public ServerPlugins(List<HttpPlugin> plugins) {
        for (PluginOp op : PluginOp.values()) {
            List<HttpPlugin> subscribed = new ArrayList<>();
            for (HttpPlugin p : plugins) {
                if (p.handles(op)) {
                    subscribed.add(p);
                }
            }
            byOp.put(op, List.copyOf(subscribed));
        }
    }

    /**
     * The plugins of {@code config}'s {@code [[httpPlugins]]}, their calls on {@code group}'s loops.
     * The entries were validated with the config.
     */
    public static ServerPlugins of(List<ServerConfig.HttpPlugin> config, EventLoopGroup group) {
        if (config.isEmpty()) {
            return NONE;
        }
        List<HttpPlugin> plugins = new ArrayList<>();
        for (ServerConfig.HttpPlugin p : config) {
            Set<PluginOp> ops = EnumSet.noneOf(PluginOp.class);
            p.ops.forEach(op -> ops.add(PluginOp.byName(op)));
            plugins.add(new HttpPlugin(p.name, PluginEndpoint.parse(p.addr, p.path), ops, p.tlsVerify, group,
                    HttpPlugin.Limits.DEFAULT));
            log.info("server plugin [{}] at {} for {}", p.name, PluginEndpoint.parse(p.addr, p.path), p.ops);
        }
        return new ServerPlugins(plugins);
    }

    /** Whether any plugin subscribed to {@code op}. */
    public boolean handles(PluginOp op) {
        return !byOp.get(op).isEmpty();
    }

    /**
     * Runs {@code op}'s chain on {@code content}. The future, completed on {@code executor}, holds
     * the {@link Outcome}, or fails with a {@link PluginException} (a failure is logged here, once
     * per burst; a rejection is for the caller to log with its context).
     */
    public Future<Outcome> run(PluginOp op, JsonNode content, EventExecutor executor) {
        Promise<Outcome> result = executor.newPromise();
        next(op, byOp.get(op), 0, new Outcome(content, null), result, executor);
        return result;
    }

    private void next(PluginOp op, List<HttpPlugin> chain, int index, Outcome sofar, Promise<Outcome> result,
                      EventExecutor executor) {
        if (index == chain.size()) {
            result.setSuccess(sofar);
            return;
        }
        HttpPlugin plugin = chain.get(index);
        plugin.call(op, sofar.content(), executor).addListener(f -> {
            if (!f.isSuccess()) {
                failures.warn("{}", f.cause().getMessage());
                result.setFailure(f.cause());
                return;
            }
            PluginResponse answer = (PluginResponse) f.getNow();
            if (answer.reject()) {
                result.setFailure(new PluginException.Rejected(plugin.name(), op, answer.rejectReason()));
                return;
            }
            next(op, chain, index + 1, answer.unchange() ? sofar : new Outcome(answer.content(), plugin.name()),
                    result, executor);
        });
    }

    /**
     * The refusal when what {@code plugin} answered {@code op} with cannot be applied: the same
     * failure a broken answer is, naming the plugin (the caller logs it with its context).
     */
    public static PluginException unusable(String plugin, PluginOp op, String why) {
        return new PluginException.Failed(plugin, op, "its content cannot be applied: " + why);
    }

    /**
     * Tells every plugin subscribed to {@code op} (a notification such as CloseProxy); failures and
     * rejections are logged once per burst and change nothing.
     */
    public void notify(PluginOp op, JsonNode content, EventExecutor executor) {
        for (HttpPlugin plugin : byOp.get(op)) {
            plugin.call(op, content, executor).addListener(f -> {
                if (!f.isSuccess()) {
                    failures.warn("{}", f.cause().getMessage());
                }
            });
        }
    }
}
