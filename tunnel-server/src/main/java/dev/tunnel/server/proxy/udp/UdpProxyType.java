package dev.tunnel.server.proxy.udp;

import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.server.proxy.ServerEnvironment;
import dev.tunnel.server.proxy.ServerProxyType;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.util.concurrent.Future;

/**
 * {@code type = "udp"}: a public UDP port of its own per proxy ({@code remotePort}; 0 = the
 * server picks), each peer address an association carried as a stream: of the session's mux
 * connection, or in pool mode of a work connection of the proxy's own ({@link UdpCarrier}). Options:
 * {@code remotePort}. Reads the server's {@code udpPacketSize}.
 */
public final class UdpProxyType implements ServerProxyType {
    public static final String NAME = "udp";

    private int packetSize = 1500;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void open(ServerEnvironment environment) {
        packetSize = environment.config().udpPacketSize;
    }

    @Override
    public Future<RunningProxy> start(ProxyRequest request, ProxySession session) {
        int remotePort;
        try {
            remotePort = request.remotePort();
        } catch (ProxyRefusedException e) {
            return session.link().eventLoop().newFailedFuture(e);
        }
        String version = request.options().string("transport.proxyProtocolVersion", "");
        if (!version.isEmpty() && !version.equals("v2")) {
            return failed(session, "transport.proxyProtocolVersion: \"" + version + "\" (a udp proxy sends \"v2\" only:"
                    + " v1 names TCP connections)");
        }
        request.proxy().proxyProtocol(version.isEmpty() ? null : HAProxyProtocolVersion.V2);
        return new UdpProxy(request, session, packetSize).start(remotePort);
    }

    private static Future<RunningProxy> failed(ProxySession session, String reason) {
        return session.link().eventLoop().newFailedFuture(new ProxyRefusedException(reason));
    }
}
