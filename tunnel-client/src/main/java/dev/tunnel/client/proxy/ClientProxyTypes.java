package dev.tunnel.client.proxy;

import dev.tunnel.client.proxy.secret.SecretClientType;
import dev.tunnel.client.proxy.http.HttpClientType;
import dev.tunnel.client.proxy.http.HttpsClientType;
import dev.tunnel.client.proxy.tcp.TcpClientType;
import dev.tunnel.client.proxy.tcpmux.TcpMuxClientType;
import dev.tunnel.client.proxy.udp.UdpClientType;
import dev.tunnel.protocol.Capabilities;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The proxy types this client runs, by name. {@link #standard()} is the one place a type is
 * registered; tests add their own with {@link #register}. Config validation, {@code verify} and
 * the capabilities announced at login read it.
 *
 * <p>Threading: filled before the client starts, read-only afterwards.
 */
public final class ClientProxyTypes {
    private final Map<String, ClientProxyType> types = new LinkedHashMap<>();

    /** Every type this build supports. */
    public static ClientProxyTypes standard() {
        return new ClientProxyTypes()
                .register(new TcpClientType())
                .register(new UdpClientType())
                .register(new HttpClientType())
                .register(new HttpsClientType())
                .register(new SecretClientType("stcp", false))
                .register(new SecretClientType("sudp", true))
                .register(new TcpMuxClientType());
    }

    /** Adds {@code type}; a name registered twice is a programming error. */
    public ClientProxyTypes register(ClientProxyType type) {
        if (types.putIfAbsent(type.name(), type) != null) {
            throw new IllegalArgumentException("proxy type \"" + type.name() + "\" is registered twice");
        }
        return this;
    }

    /** The type called {@code name}, or null. */
    public ClientProxyType get(String name) {
        return types.get(name);
    }

    /** The names, in registration order. */
    public List<String> names() {
        return List.copyOf(types.keySet());
    }

    /**
     * What the client announces at login: the base capabilities, {@code mux.openData} (it takes
     * OPEN frames with first bytes), {@code pool.issuedNonces} (its work connections answer nonces
     * handed out ahead) and {@code proxy.NAME} per type.
     */
    public List<String> capabilities() {
        List<String> caps = new ArrayList<>(Capabilities.BASE);
        caps.add(Capabilities.OPEN_DATA);
        caps.add(Capabilities.ISSUED_NONCES);
        for (String name : types.keySet()) {
            caps.add(Capabilities.proxyType(name));
        }
        return caps;
    }
}
