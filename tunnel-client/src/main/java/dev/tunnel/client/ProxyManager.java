package dev.tunnel.client;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.health.HealthMonitor;
import dev.tunnel.client.plugin.LocalPlugin;
import dev.tunnel.client.plugin.LocalPlugins;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.client.proxy.LimitedDialer;
import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.relay.Bandwidth;
import dev.tunnel.protocol.relay.TokenBucket;
import dev.tunnel.protocol.relay.TrafficCounter;
import dev.tunnel.protocol.transport.Transports;
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
 * <p>A proxy with a {@code healthCheck} has a {@link HealthMonitor}: it is registered only while
 * its local app passes the checks. A failing app withdraws it ({@code CLOSE_PROXY}: the server
 * stops taking its public connections), a passing one registers it again ({@code NEW_PROXY},
 * same id); a login registers only the proxies that are not withdrawn.
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
    private final Map<String, HealthMonitor> monitors = new HashMap<>();
    /** Proxies withdrawn by their health check, with the last failure ("" before the first check). */
    private final Map<String, String> withdrawn = new HashMap<>();
    private int nextId = 1;
    /** The control connections whose logins carried the registrations: one per live server session. */
    private final java.util.Set<Channel> sessions = new java.util.LinkedHashSet<>();

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
     * Until {@link #sessionEnded}, changes go out on {@code control} (and every other live
     * session: one per server) as they happen.
     */
    synchronized List<NewProxy> beginSession(Channel control) {
        sessions.add(control);
        List<NewProxy> registrations = new ArrayList<>();
        for (ProxyTarget proxy : all()) {
            if (!withdrawn.containsKey(proxy.name())) {
                registrations.add(newProxy(proxy));
            }
        }
        return registrations;
    }

    /** The session on {@code control} is over (or draining): changes no longer go to it. */
    synchronized void sessionEnded(Channel control) {
        sessions.remove(control);
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
        if (!monitor(config)) {
            send(newProxy(proxy));
        }
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
            stopMonitor(old.name());
            send(new CloseProxy(old.id(), old.name()));
            if (!monitor(config)) {
                send(newProxy(proxy));
            }
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
            stopMonitor(name);
            send(new CloseProxy(proxy.id(), proxy.name()));
            plugin = plugins.remove(name);
        }
        if (plugin != null) {
            plugin.close(); // outside the lock: its connections' loops may be waiting for it
        }
        return true;
    }

    /**
     * Stops every plugin and health check (client shutdown). Plugins close outside the lock:
     * closing waits for their connections, whose event loop may be waiting for this lock (a
     * session ending).
     */
    void close() {
        List<LocalPlugin> running;
        synchronized (this) {
            running = new ArrayList<>(plugins.values());
            plugins.clear();
            monitors.values().forEach(HealthMonitor::stop);
            monitors.clear();
        }
        running.forEach(LocalPlugin::close);
    }

    /**
     * Why proxy {@code name} is withdrawn by its health check ("" before its first check), or null
     * when it is not (no check, or the check passes).
     */
    synchronized String healthFailure(String name) {
        return withdrawn.get(name);
    }

    /**
     * Starts the health check of a proxy that has one: the proxy stays withdrawn until a check
     * passes. Returns false for a proxy without one (register it now).
     */
    private boolean monitor(ProxyConfig config) {
        if (!config.healthCheck.enabled() || config.plugin != null || group == null) {
            return false;
        }
        withdrawn.put(config.name, "");
        HealthMonitor[] self = new HealthMonitor[1];
        self[0] = new HealthMonitor(config.name, config.healthCheck,
                new InetSocketAddress(config.localIP, config.localPort), group.next(), Transports.socketChannel(),
                change -> healthChanged(config.name, self[0], change));
        monitors.put(config.name, self[0]);
        self[0].start();
        return true;
    }

    private void stopMonitor(String name) {
        HealthMonitor monitor = monitors.remove(name);
        if (monitor != null) {
            monitor.stop();
        }
        withdrawn.remove(name);
    }

    /** A health check changed its verdict: register the proxy again, or withdraw it. */
    private synchronized void healthChanged(String name, HealthMonitor monitor, HealthMonitor.Change change) {
        ProxyTarget proxy = byName.get(name);
        if (proxy == null || monitors.get(name) != monitor) {
            return; // the proxy was removed or changed meanwhile
        }
        if (change.healthy()) {
            if (withdrawn.remove(name) != null) {
                send(newProxy(proxy));
            }
        } else if (withdrawn.put(name, change.reason()) == null) {
            send(new CloseProxy(proxy.id(), proxy.name()));
        }
    }

    /** The proxy's running form; {@code traffic} carries on across a change. */
    private ProxyTarget build(int id, ProxyConfig config, TrafficCounter traffic) throws Exception {
        ClientProxyType type = types.get(config.type);
        if (type == null) {
            throw new IllegalArgumentException("proxy [" + config.name + "]: type \"" + config.type
                    + "\" is not supported (supported: " + String.join(", ", types.names()) + ")");
        }
        Options options = withCommonKeys(type.options(config), config);
        LocalDialer dialer;
        if (config.plugin != null) {
            LocalPlugin plugin = LocalPlugins.start(config.name, config.plugin, group);
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
        return new ProxyTarget(id, config.name, config.type, options, dialer, traffic, needs(config));
    }

    /** The keys every type carries the same way: {@code loadBalancer.*}, {@code metadatas.*}, {@code annotations.*}. */
    private static Options withCommonKeys(Options typeOptions, ProxyConfig config) {
        if (config.loadBalancer.group.isEmpty() && config.metadatas.isEmpty() && config.annotations.isEmpty()) {
            return typeOptions;
        }
        Options.Builder b = Options.builder().putAll(typeOptions);
        if (!config.loadBalancer.group.isEmpty()) {
            b.put("loadBalancer.group", config.loadBalancer.group).put("loadBalancer.groupKey", config.loadBalancer.groupKey);
        }
        return b.putMap("metadatas", config.metadatas).putMap("annotations", config.annotations).build();
    }

    /** What the server must announce for this proxy to work as configured. */
    private static java.util.List<String> needs(ProxyConfig config) {
        List<String> needs = new ArrayList<>();
        needs.add(Capabilities.proxyType(config.type));
        if (!config.loadBalancer.group.isEmpty()) {
            needs.add(Capabilities.LOAD_BALANCER);
        }
        if (!config.metadatas.isEmpty() || !config.annotations.isEmpty()) {
            needs.add(Capabilities.METADATA);
        }
        return List.copyOf(needs);
    }

    private static NewProxy newProxy(ProxyTarget proxy) {
        return new NewProxy(proxy.id(), proxy.name(), proxy.type(), proxy.options());
    }

    private void send(ControlMessage message) {
        for (Channel control : sessions) {
            if (control.isActive()) {
                control.writeAndFlush(new ControlFrame(message));
                log.debug("{} sent {}", control, message);
            }
        }
    }
}
