package dev.tunnel.server.proxy.tcp;

import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.PublicPortBinding;
import dev.tunnel.server.proxy.RunningProxy;
import io.netty.util.concurrent.Future;

/**
 * One running tcp proxy: its public port ({@link PublicPortBinding}: reserved under the
 * account's rules, bound, released on close) with a {@link ProxyListener} on it.
 *
 * <p>Threading: session loop; bind results come back to it.
 */
final class TcpProxy implements RunningProxy {
    private final ProxyRequest request;
    private final PublicPortBinding binding;

    TcpProxy(ProxyRequest request, ProxySession session) {
        this.request = request;
        this.binding = new PublicPortBinding(session, session.ports(), "",
                (host, port) -> new ProxyListener(request.proxy(), session.link()).bind(host, port));
    }

    Future<RunningProxy> start(int remotePort) {
        return binding.start(remotePort, this, request.qualifiedName());
    }

    @Override
    public int remotePort() {
        return binding.port();
    }

    @Override
    public Future<?> close() {
        return binding.close();
    }
}
