package dev.tunnel.client;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.plugin.LocalPlugin;
import dev.tunnel.client.plugin.LocalPlugins;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.client.proxy.LimitedDialer;
import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.relay.Bandwidth;
import dev.tunnel.protocol.relay.TokenBucket;
import dev.tunnel.protocol.relay.TrafficCounter;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's proxies, each with an id that stays the same for the proxy's life (across
 * reconnections and changes): what a login registers, what a stream's proxy id is looked up in,
 * and what changes on a live session. Adding a proxy sends {@code NEW_PROXY}, removing one sends
 * {@code CLOSE_PROXY} (the server closes its public side and its connections), changing one sends
 * both with the same id. A proxy served by a built-in plugin ({@code [proxies.plugin]}) gets
 * the plugin started with it and stopped with it.
 *
 * <h3>Threading</h3>
 * Any thread. Lookups by id ({@link #get}) are lock-free (event loops call them per stream);
 * changes and the start of a session are serialized on this object, so a change made while a
 * login is in flight is sent exactly once: in the login's batch or right behind it.
 */
final class ProxyManager {
    private static final Logger log = LoggerFactory.getLogger(ProxyManager.class);

    private final ClientProxyTypes types;
    private final EventLoopGroup group;
    private final Map<Integer, ProxyTarget> byId = new ConcurrentHashMap<>();
    private final Map<String, ProxyTarget> byName = new HashMap<>();
    private final Map<String, LocalPlugin> plugins = new HashMap<>();
    private int nextId = 1;
    /** The control connection whose login carried the registrations, or null between sessions. */
    private Channel session;

    ProxyManager(ClientProxyTypes types, EventLoopGroup group) {
        this.types = types;
        this.group = group;
    }

    /** The proxy with id {@code id}, or null (a stream for a proxy just removed). */
    ProxyTarget get(int id) {
        return byId.get(id);
    }

    /** The proxy called {@code name}, or null. */
    synchronized ProxyTarget byName(String name) {
        return byName.get(name);
    }

    /** Every proxy, in id order. */
    synchronized List<ProxyTarget> all() {
        List<ProxyTarget> all = new ArrayList<>(byName.values());
        all.sort(Comparator.comparingInt(ProxyTarget::id));
        return all;
    }

    /**
     * A login is being sent on {@code control}: returns the registrations to send behind it.
     * Until {@link #sessionEnded}, changes go out on {@code control} as they happen.
     */
    synchronized List<NewProxy> beginSession(Channel control) {
        session = control;
        List<NewProxy> registrations = new ArrayList<>();
        for (ProxyTarget proxy : all()) {
            registrations.add(newProxy(proxy));
        }
        return registrations;
    }

    /** The session on {@code control} is over: changes wait for the next login. */
    synchronized void sessionEnded(Channel control) {
        if (session == control) {
            session = null;
        }
    }

    /**
     * Adds a proxy (validated already) and registers it on the live session, if any.
     *
     * @throws IllegalArgumentException if the name is taken or the type unknown
     */
    synchronized ProxyTarget add(ProxyConfig config) throws Exception {
        if (byName.containsKey(config.name)) {
            throw new IllegalArgumentException("proxy [" + config.name + "] already exists");
        }
        ProxyTarget proxy = build(nextId++, config, new TrafficCounter());
        byName.put(proxy.name(), proxy);
        byId.put(proxy.id(), proxy);
        send(newProxy(proxy));
        return proxy;
    }

    /**
     * Replaces proxy {@code config.name} with {@code config}, keeping its id: the server closes the
     * old one and starts the new one.
     *
     * @throws IllegalArgumentException if there is no such proxy or the type is unknown
     */
    ProxyTarget update(ProxyConfig config) throws Exception {
        ProxyTarget proxy;
        LocalPlugin oldPlugin;
        synchronized (this) {
            ProxyTarget old = byName.get(config.name);
            if (old == null) {
                throw new IllegalArgumentException("proxy [" + config.name + "] does not exist");
            }
            oldPlugin = plugins.remove(old.name());
            try {
                proxy = build(old.id(), config, old.traffic());
            } catch (Exception e) {
                if (oldPlugin != null) {
                    plugins.put(old.name(), oldPlugin);
                }
                throw e;
            }
            byName.put(proxy.name(), proxy);
            byId.put(proxy.id(), proxy);
            send(new CloseProxy(old.id(), old.name()));
            send(newProxy(proxy));
        }
        if (oldPlugin != null) {
            oldPlugin.close(); // outside the lock: its connections' loops may be waiting for it
        }
        return proxy;
    }

    /** Removes proxy {@code name}: the server closes its public side and connections. False if unknown. */
    boolean remove(String name) {
        LocalPlugin plugin;
        synchronized (this) {
            ProxyTarget proxy = byName.remove(name);
            if (proxy == null) {
                return false;
            }
            byId.remove(proxy.id());
            send(new CloseProxy(proxy.id(), proxy.name()));
            plugin = plugins.remove(name);
        }
        if (plugin != null) {
            plugin.close(); // outside the lock: its connections' loops may be waiting for it
        }
        return true;
    }

    /**
     * Stops every plugin (client shutdown). Plugins close outside the lock: closing waits for
     * their connections, whose event loop may be waiting for this lock (a session ending).
     */
    void close() {
        List<LocalPlugin> running;
        synchronized (this) {
            running = new ArrayList<>(plugins.values());
            plugins.clear();
        }
        running.forEach(LocalPlugin::close);
    }

    /** The proxy's running form; {@code traffic} carries on across a change. */
    private ProxyTarget build(int id, ProxyConfig config, TrafficCounter traffic) throws Exception {
        ClientProxyType type = types.get(config.type);
        if (type == null) {
            throw new IllegalArgumentException("proxy [" + config.name + "]: type \"" + config.type
                    + "\" is not supported (supported: " + String.join(", ", types.names()) + ")");
        }
        Options options = type.options(config);
        LocalDialer dialer;
        if (config.plugin != null) {
            LocalPlugin plugin = LocalPlugins.start(config.plugin, group);
            plugins.put(config.name, plugin);
            dialer = plugin.dialer();
        } else {
            dialer = type.dialer(config, new InetSocketAddress(config.localIP, config.localPort));
        }
        long limit = Bandwidth.parse(config.transport.bandwidthLimit); // validated with the config
        if (limit > 0 && Bandwidth.MODE_SERVER.equals(config.transport.bandwidthLimitMode)) {
            options = Options.builder().putAll(options).put("transport.bandwidthLimit", config.transport.bandwidthLimit)
                    .put("transport.bandwidthLimitMode", Bandwidth.MODE_SERVER).build();
        } else if (limit > 0) {
            dialer = new LimitedDialer(dialer, new TokenBucket(limit));
        }
        return new ProxyTarget(id, config.name, config.type, options, dialer, traffic);
    }

    private static NewProxy newProxy(ProxyTarget proxy) {
        return new NewProxy(proxy.id(), proxy.name(), proxy.type(), proxy.options());
    }

    private void send(ControlMessage message) {
        Channel control = session;
        if (control != null && control.isActive()) {
            control.writeAndFlush(new ControlFrame(message));
            log.debug("{} sent {}", control, message);
        }
    }
}
