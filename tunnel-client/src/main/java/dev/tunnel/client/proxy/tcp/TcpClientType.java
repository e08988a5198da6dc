package dev.tunnel.client.proxy.tcp;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.secret.SecretClientType;
import dev.tunnel.client.proxy.http.VhostKeys;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import java.util.List;

/**
 * {@code type = "tcp"}: the server opens {@code remotePort} (0 = it picks) and each connection to
 * it becomes a TCP connection to the local app. Reads {@code remotePort} and
 * {@code transport.proxyProtocolVersion}.
 */
public final class TcpClientType implements ClientProxyType {
    public static final String NAME = "tcp";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void validate(ProxyConfig proxy, String key, ValueChecks checks) {
        checks.range(key + ".remotePort", proxy.remotePort, 0, 65535);
        SecretClientType.refuseSecretKeys(proxy, key, checks);
        checks.oneOf(key + ".transport.proxyProtocolVersion", proxy.transport.proxyProtocolVersion,
                List.of("", "v1", "v2"), List.of());
        VhostKeys.refuseOnOtherTypes(proxy, key, checks);
    }

    @Override
    public Options options(ProxyConfig proxy) {
        Options.Builder options = Options.builder().put("remotePort", proxy.remotePort);
        if (!proxy.transport.proxyProtocolVersion.isEmpty()) {
            options.put("transport.proxyProtocolVersion", proxy.transport.proxyProtocolVersion);
        }
        return options.build();
    }
}
