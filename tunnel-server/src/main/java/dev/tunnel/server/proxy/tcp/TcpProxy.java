package dev.tunnel.server.proxy.tcp;

import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.PublicPortBinding;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.server.inbound.TrustedSources;
import io.netty.util.concurrent.Future;

/**
 * One running tcp proxy: its public port ({@link PublicPortBinding}: reserved under the
 * account's rules, bound, released on close) with a {@link ProxyListener} on it, whose
 * connections go to the proxy's own link or, for the opening member of a load-balancing group,
 * to the group.
 *
 * <p>Threading: session loop; bind results come back to it.
 */
final class TcpProxy implements RunningProxy {
    private final ProxyRequest request;
    private final PublicPortBinding binding;

    TcpProxy(ProxyRequest request, ProxySession session, TrustedSources trust) {
        this(request, session, null, trust);
    }

    /**
     * A proxy whose accepted connections go to {@code sink} (a group's), or to its own link when
     * null; {@code trust} names the balancers whose PROXY header its port reads.
     */
    TcpProxy(ProxyRequest request, ProxySession session, ConnectionSink sink, TrustedSources trust) {
        this.request = request;
        ConnectionSink target = sink != null ? sink : ConnectionSink.of(request.proxy(), session.link());
        this.binding = new PublicPortBinding(session, session.ports(), "", (host, port) ->
                new ProxyListener(session.link(), target, trust).bind(host, port));
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
