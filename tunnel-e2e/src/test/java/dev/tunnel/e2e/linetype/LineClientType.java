package dev.tunnel.e2e.linetype;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.client.proxy.tcp.TcpDialer;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import java.net.InetSocketAddress;

/** The client side of {@code type = "line"}: routes by the proxy's name; TCP to the local app. */
public final class LineClientType implements ClientProxyType {

    @Override
    public String name() {
        return LineServerType.NAME;
    }

    @Override
    public void validate(ProxyConfig proxy, String key, ValueChecks checks) {
        checks.check(proxy.remotePort == 0, key + ".remotePort", "not used by type \"line\" (expected: 0)");
    }

    @Override
    public Options options(ProxyConfig proxy) {
        return Options.of("route", proxy.name);
    }

    @Override
    public LocalDialer dialer(ProxyConfig proxy, InetSocketAddress local) {
        return new TcpDialer(local);
    }
}
