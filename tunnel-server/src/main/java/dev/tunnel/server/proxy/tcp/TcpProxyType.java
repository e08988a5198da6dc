package dev.tunnel.server.proxy.tcp;

import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.server.proxy.ServerEnvironment;
import dev.tunnel.server.proxy.ServerProxyType;
import dev.tunnel.server.inbound.TrustedSources;
import dev.tunnel.server.vhost.ProxyProtocolHeader;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.util.concurrent.Future;

/**
 * {@code type = "tcp"}: a public port of its own per proxy ({@code remotePort}; 0 or absent =
 * the server picks one among {@code allowPorts}, or the OS does), every connection to it carried
 * to the client. Options: {@code remotePort}, {@code transport.proxyProtocolVersion} ("v1", "v2":
 * the local app reads a PROXY protocol header naming the visitor first), {@code loadBalancer.group}
 * and {@code loadBalancer.groupKey} (proxies of one group share one public port: {@link TcpGroup}).
 */
public final class TcpProxyType implements ServerProxyType {
    public static final String NAME = "tcp";
    /** Longest group name accepted (the client checks the same). */
    private static final int MAX_GROUP = 128;

    private TrustedSources trust = TrustedSources.none();
    private TcpGroups groups = new TcpGroups(trust);

    @Override
    public String name() {
        return NAME;
    }

    /** Before any session: the balancers whose PROXY header tcp ports read ({@code proxyProtocolTrustedIPs}). */
    @Override
    public void open(ServerEnvironment environment) {
        trust = TrustedSources.parse(environment.config().proxyProtocolTrustedIPs);
        groups = new TcpGroups(trust);
    }

    @Override
    public Future<RunningProxy> start(ProxyRequest request, ProxySession session) {
        int remotePort;
        try {
            remotePort = request.remotePort();
        } catch (ProxyRefusedException e) {
            return session.link().eventLoop().newFailedFuture(e);
        }
        HAProxyProtocolVersion proxyProtocol;
        try {
            proxyProtocol = ProxyProtocolHeader.version(request.options().string("transport.proxyProtocolVersion", ""));
        } catch (IllegalArgumentException e) {
            return failed(session, "transport." + e.getMessage());
        }
        request.proxy().proxyProtocol(proxyProtocol);
        String group = request.options().string("loadBalancer.group", "");
        if (group.length() > MAX_GROUP) {
            return failed(session, "loadBalancer.group: longer than " + MAX_GROUP + " characters");
        }
        if (!group.isEmpty()) {
            return groups.join(group, request.options().string("loadBalancer.groupKey", ""), remotePort, request,
                    session);
        }
        return new TcpProxy(request, session, trust).start(remotePort);
    }

    private static Future<RunningProxy> failed(ProxySession session, String reason) {
        return session.link().eventLoop().newFailedFuture(new ProxyRefusedException(reason));
    }
}
