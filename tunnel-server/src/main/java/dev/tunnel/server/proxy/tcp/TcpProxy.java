package dev.tunnel.server.proxy.tcp;

import dev.tunnel.server.proxy.BindFailures;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.PublicPorts;
import dev.tunnel.server.proxy.RunningProxy;
import io.netty.channel.ChannelFuture;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running tcp proxy: reserves its public port under the account's rules, binds it (trying
 * other allowed ports when the server picks and one is taken), and releases it on close.
 *
 * <p>Threading: session loop; bind results come back to it.
 */
final class TcpProxy implements RunningProxy {
    private static final Logger log = LoggerFactory.getLogger(TcpProxy.class);
    private static final int MAX_PICK_ATTEMPTS = 64;

    private final ProxyRequest request;
    private final ProxySession session;
    private final PublicPorts ports;
    private final Promise<RunningProxy> started;
    /** Where the listener's connections go: the proxy's link, or its group. */
    private final java.util.function.Consumer<io.netty.channel.Channel> sink;
    private ProxyListener listener;
    private int reserved;
    private int port;
    private boolean closed;

    TcpProxy(ProxyRequest request, ProxySession session) {
        this(request, session, null);
    }

    /** A proxy whose accepted connections go to {@code sink} (a group's), or to its own link when null. */
    TcpProxy(ProxyRequest request, ProxySession session, java.util.function.Consumer<io.netty.channel.Channel> sink) {
        this.request = request;
        this.session = session;
        this.sink = sink;
        this.ports = session.ports();
        this.started = session.link().eventLoop().newPromise();
    }

    Future<RunningProxy> start(int remotePort) {
        int[] candidates = ports.candidates();
        if (remotePort == 0 && candidates.length > 0) {
            pickAndBind(candidates, ThreadLocalRandom.current().nextInt(candidates.length), 0);
            return started;
        }
        String refused = ports.reserve(remotePort);
        if (refused != null) {
            return refuse(refused);
        }
        bind(remotePort, null);
        return started;
    }

    private void pickAndBind(int[] candidates, int start, int attempt) {
        for (; attempt < Math.min(MAX_PICK_ATTEMPTS, candidates.length); attempt++) {
            int candidate = candidates[(start + attempt) % candidates.length];
            if (!ports.isFree(candidate)) {
                continue;
            }
            String refused = ports.reserve(candidate);
            if (refused == null) {
                int next = attempt + 1;
                bind(candidate, () -> pickAndBind(candidates, start, next));
                return;
            }
            if (refused.contains("maxPortsPerClient")) {
                refuse(refused);
                return;
            }
        }
        refuse("no free port among the server's allowPorts");
    }

    private void bind(int wanted, Runnable onInUse) {
        ProxyListener bound = sink == null ? new ProxyListener(request.proxy(), session.link())
                : new ProxyListener(session.link(), sink);
        String host = ports.bindAddr();
        ChannelFuture binding = bound.bind(host, wanted);
        binding.addListener(f -> session.link().eventLoop().execute(() -> {
            if (!f.isSuccess()) {
                ports.release(wanted);
                boolean inUse = BindFailures.addressInUse(f.cause());
                if (onInUse != null && inUse) {
                    onInUse.run();
                    return;
                }
                refuse(inUse ? "port " + wanted + " is already in use on " + host
                        : "failed to bind on [" + host + ":" + wanted + "]: " + f.cause().getMessage());
                return;
            }
            listener = bound;
            port = bound.port();
            reserved = wanted == 0 ? port : wanted;
            if (wanted == 0) {
                ports.bound(port);
            }
            log.info("{} client {} proxy [{}] listening on {}:{}", session.link().control(), session.id(),
                    request.qualifiedName(), host, port);
            if (!started.trySuccess(this)) {
                close(); // the session closed meanwhile
            }
        }));
    }

    private Future<RunningProxy> refuse(String reason) {
        started.tryFailure(new ProxyRefusedException(reason));
        return started;
    }

    @Override
    public int remotePort() {
        return port;
    }

    @Override
    public Future<?> close() {
        if (closed || listener == null) {
            return session.link().eventLoop().newSucceededFuture(null);
        }
        closed = true;
        ports.release(reserved);
        return listener.close();
    }
}
