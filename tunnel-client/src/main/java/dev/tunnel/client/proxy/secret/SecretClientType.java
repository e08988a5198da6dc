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
 * Reads {@code secretKey} (required) and {@code allowUsers}; needs {@code transport.tcpMux = true}.
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
        return Options.builder().put("secretKey", proxy.secretKey).putList("allowUsers", proxy.allowUsers).build();
    }

    @Override
    public LocalDialer dialer(ProxyConfig proxy, InetSocketAddress local) {
        return udp ? new UdpDialer(proxy.name, local) : new TcpDialer(local);
    }

    @Override
    public String portSpace() {
        return null;
    }

    /** No public connections on the server (visitors' streams); sudp carries datagrams. */
    @Override
    public List<String> bandwidthLimitModes() {
        return udp ? List.of() : List.of(Bandwidth.MODE_CLIENT);
    }

    @Override
    public boolean needsMux() {
        return true;
    }
}
