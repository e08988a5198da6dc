package dev.tunnel.server.proxy;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.server.proxy.secret.SecretProxies;
import dev.tunnel.server.proxy.secret.SecretProxyType;
import dev.tunnel.server.proxy.http.VhostProxyType;
import dev.tunnel.server.proxy.tcp.TcpProxyType;
import dev.tunnel.server.proxy.tcpmux.TcpMuxProxyType;
import dev.tunnel.server.proxy.udp.UdpProxyType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The proxy types this server carries, by name. {@link #standard()} is the one place a type is
 * registered; tests add their own with {@link #register}. The registry answers which types exist
 * (proxy registration, the capabilities announced at login, config validation).
 *
 * <p>Threading: filled before the server starts, read-only afterwards.
 */
public final class ServerProxyTypes {
    private final Map<String, ServerProxyType> types = new LinkedHashMap<>();

    /** Every type this build supports. */
    public static ServerProxyTypes standard() {
        SecretProxies secrets = new SecretProxies();
        return new ServerProxyTypes()
                .register(new TcpProxyType())
                .register(new UdpProxyType())
                .register(VhostProxyType.http())
                .register(VhostProxyType.https())
                .register(new SecretProxyType("stcp", secrets))
                .register(new SecretProxyType("sudp", secrets))
                .register(new TcpMuxProxyType());
    }

    /** Adds {@code type}; a name registered twice is a programming error. */
    public ServerProxyTypes register(ServerProxyType type) {
        if (types.putIfAbsent(type.name(), type) != null) {
            throw new IllegalArgumentException("proxy type \"" + type.name() + "\" is registered twice");
        }
        return this;
    }

    /** The type called {@code name}, or null. */
    public ServerProxyType get(String name) {
        return types.get(name);
    }

    /** The names, in registration order. */
    public List<String> names() {
        return List.copyOf(types.keySet());
    }

    public Collection<ServerProxyType> all() {
        return Collections.unmodifiableCollection(types.values());
    }

    /**
     * What the server announces at login: the base capabilities, {@code mux.openData} (it takes
     * OPEN frames with first bytes), {@code metadatas} (it keeps a client's and its proxies' for
     * the API), {@code proxy.visitorRules}, {@code loadBalancer} (tcp groups, with the tcp type) and {@code proxy.NAME} per type.
     */
    public List<String> capabilities() {
        List<String> caps = new ArrayList<>(Capabilities.BASE);
        caps.add(Capabilities.OPEN_DATA);
        caps.add(Capabilities.METADATA);
        caps.add(Capabilities.VISITOR_RULES);
        if (types.containsKey(dev.tunnel.server.proxy.tcp.TcpProxyType.NAME)) {
            caps.add(Capabilities.LOAD_BALANCER);
        }
        for (String name : types.keySet()) {
            caps.add(Capabilities.proxyType(name));
        }
        return caps;
    }
}
