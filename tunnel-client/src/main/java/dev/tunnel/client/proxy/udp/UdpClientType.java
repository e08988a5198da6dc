package dev.tunnel.client.proxy.udp;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.client.proxy.secret.SecretClientType;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * {@code type = "udp"}: the server opens UDP {@code remotePort} (0 = it picks); each peer address
 * becomes an association with a UDP socket of its own here. Reads {@code remotePort}; needs
 * {@code transport.tcpMux = true}.
 */
public final class UdpClientType implements ClientProxyType {
    public static final String NAME = "udp";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void validate(ProxyConfig proxy, String key, ValueChecks checks) {
        checks.range(key + ".remotePort", proxy.remotePort, 0, 65535);
        SecretClientType.refuseSecretKeys(proxy, key, checks);
    }

    @Override
    public Options options(ProxyConfig proxy) {
        return Options.builder().put("remotePort", proxy.remotePort).build();
    }

    @Override
    public LocalDialer dialer(ProxyConfig proxy, InetSocketAddress local) {
        return new UdpDialer(proxy.name, local);
    }

    @Override
    public String portSpace() {
        return "udp";
    }

    /** Datagrams are not paced: a bandwidth limit on a udp proxy is an error. */
    @Override
    public List<String> bandwidthLimitModes() {
        return List.of();
    }

    @Override
    public boolean needsMux() {
        return true;
    }
}
