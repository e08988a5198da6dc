package dev.tunnel.client.proxy.udp;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.client.proxy.secret.SecretClientType;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.relay.Bandwidth;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * {@code type = "udp"}: the server opens UDP {@code remotePort} (0 = it picks); each peer address
 * becomes an association with a UDP socket of its own here. Reads {@code remotePort},
 * {@code transport.proxyProtocolVersion} ("v2": the server puts a PROXY header before the first
 * datagram of each peer, in that datagram, as frp) and the bandwidth keys. In pool mode
 * ({@code transport.tcpMux = false}) the associations ride one work connection of the proxy's
 * own, as in frp (a carrier session: see docs/udp.md).
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
        checks.check(!proxy.transport.proxyProtocolVersion.equals("v1"), key + ".transport.proxyProtocolVersion",
                "\"v1\" names TCP connections only; a udp proxy sends a \"v2\" header (UDP4/UDP6) before the first"
                        + " datagram from each new peer (frp's v1 for udp is \"PROXY UNKNOWN\", which names nobody)");
        checks.oneOf(key + ".transport.proxyProtocolVersion", proxy.transport.proxyProtocolVersion,
                List.of("", "v1", "v2"), List.of());
    }

    @Override
    public Options options(ProxyConfig proxy) {
        Options.Builder options = Options.builder().put("remotePort", proxy.remotePort);
        if (!proxy.transport.proxyProtocolVersion.isEmpty()) {
            options.put("transport.proxyProtocolVersion", proxy.transport.proxyProtocolVersion);
        }
        return options.build();
    }

    @Override
    public LocalDialer dialer(ProxyConfig proxy, InetSocketAddress local) {
        return new UdpDialer(proxy.name, local);
    }

    @Override
    public String portSpace() {
        return "udp";
    }

    /**
     * Both modes, as frp: "client" drops the local app's datagrams over the limit (what visitors
     * receive), "server" the peers' (what they send). Datagrams cannot wait, so over the limit they
     * are dropped and counted ({@code DatagramLimiter}).
     */
    @Override
    public List<String> bandwidthLimitModes() {
        return List.of(Bandwidth.MODE_CLIENT, Bandwidth.MODE_SERVER);
    }
}
