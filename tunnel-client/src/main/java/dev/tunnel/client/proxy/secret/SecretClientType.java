package dev.tunnel.client.proxy.secret;

import dev.tunnel.protocol.relay.Bandwidth;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.client.proxy.tcp.TcpDialer;
import dev.tunnel.client.proxy.udp.UdpDialer;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * {@code type = "stcp"} or {@code "sudp"}: no public port; visitors (another client's
 * {@code [[visitors]]} with the same {@code secretKey}) reach the local app through the server.
 * Reads {@code secretKey} (required), {@code allowUsers} and, for stcp,
 * {@code transport.proxyProtocolVersion} (the server starts each visitor's stream with a PROXY
 * header naming the visitor client's connection to it, as frp); needs {@code transport.tcpMux = true}.
 * The key goes to the server in {@code NEW_PROXY}, inside the tunnel's TLS (the server checks
 * visitors' proofs with it), as frp sends it.
 */
public final class SecretClientType implements ClientProxyType {
    private final String name;
    private final boolean udp;

    /** @param udp true for sudp (a UDP local app), false for stcp */
    public SecretClientType(String name, boolean udp) {
        this.name = name;
        this.udp = udp;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void validate(ProxyConfig proxy, String key, ValueChecks checks) {
        checks.notBlank(key + ".secretKey", proxy.secretKey);
        for (int i = 0; i < proxy.allowUsers.size(); i++) {
            checks.notBlank(key + ".allowUsers[" + i + "]", proxy.allowUsers.get(i));
        }
        if (udp) {
            checks.check(proxy.transport.proxyProtocolVersion.isEmpty(), key + ".transport.proxyProtocolVersion",
                    "\"" + proxy.transport.proxyProtocolVersion + "\" is not supported for sudp: the visitor's datagrams"
                            + " reach this client without the address of whoever sent them to the visitor, so a"
                            + " header could name no one (frp names the visitor machine's local sender)");
        } else {
            checks.oneOf(key + ".transport.proxyProtocolVersion", proxy.transport.proxyProtocolVersion,
                    List.of("", "v1", "v2"), List.of());
        }
    }

    /** For the other types: {@code secretKey} and {@code allowUsers} would be ignored, so they are errors. */
    public static void refuseSecretKeys(ProxyConfig proxy, String key, ValueChecks checks) {
        checks.check(proxy.secretKey == null, key + ".secretKey", "only stcp and sudp proxies have one (type is \""
                + proxy.type + "\")");
        checks.check(proxy.allowUsers.isEmpty(), key + ".allowUsers", "only stcp and sudp proxies have it (type is \""
                + proxy.type + "\")");
    }

    @Override
    public Options options(ProxyConfig proxy) {
        Options.Builder options = Options.builder().put("secretKey", proxy.secretKey).putList("allowUsers", proxy.allowUsers);
        if (!udp && !proxy.transport.proxyProtocolVersion.isEmpty()) {
            options.put("transport.proxyProtocolVersion", proxy.transport.proxyProtocolVersion);
        }
        return options.build();
    }

    @Override
    public LocalDialer dialer(ProxyConfig proxy, InetSocketAddress local) {
        return udp ? new UdpDialer(proxy.name, local) : new TcpDialer(local);
    }

    @Override
    public String portSpace() {
        return null;
    }

    /**
     * "client" only: the server has no public connections of its own to read (visitors' streams
     * are spliced). sudp drops the local app's datagrams over the limit ({@code DatagramLimiter}).
     */
    @Override
    public List<String> bandwidthLimitModes() {
        return List.of(Bandwidth.MODE_CLIENT);
    }

    @Override
    public boolean needsMux() {
        return true;
    }
}
