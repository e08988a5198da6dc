package dev.tunnel.server.proxy.udp;

import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.protocol.udp.UdpFront;
import dev.tunnel.protocol.udp.UdpLimits;
import dev.tunnel.protocol.udp.UdpSockets;
import dev.tunnel.server.proxy.BindFailures;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.PublicPorts;
import dev.tunnel.server.proxy.RunningProxy;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running udp proxy: its UDP port (reserved in the session's UDP port space, bound on the
 * session's loop) and the {@link UdpFront} on it, whose associations open streams through the
 * session's link (so {@code transport.maxStreamsPerClient} holds: a new peer beyond it gets no
 * association, its datagrams are dropped and counted).
 *
 * <p>Threading: session loop; the socket and every stream of it live there.
 */
final class UdpProxy implements RunningProxy {
    private static final Logger log = LoggerFactory.getLogger(UdpProxy.class);
    private static final int MAX_PICK_ATTEMPTS = 64;

    private final ProxyRequest request;
    private final ProxySession session;
    private final PublicPorts ports;
    private final int packetSize;
    private final ProxyRef ref;
    private final Promise<RunningProxy> started;
    private Channel channel;
    private int reserved;
    private int port;
    private boolean closed;

    UdpProxy(ProxyRequest request, ProxySession session, int packetSize) {
        this.request = request;
        this.session = session;
        this.ports = session.ports().udp();
        this.packetSize = packetSize;
        this.ref = new ProxyRef(request.id(), request.qualifiedName());
        this.started = session.link().eventLoop().newPromise();
    }

    Future<RunningProxy> start(int remotePort) {
        int[] candidates = ports.candidates();
        if (remotePort == 0 && candidates.length > 0) {
            pickAndBind(candidates, 0);
            return started;
        }
        String refused = ports.reserve(remotePort);
        if (refused != null) {
            return refuse(refused);
        }
        bind(remotePort, null);
        return started;
    }

    private void pickAndBind(int[] candidates, int attempt) {
        for (; attempt < Math.min(MAX_PICK_ATTEMPTS, candidates.length); attempt++) {
            int candidate = candidates[(int) ((attempt * 7919L + request.id()) % candidates.length)];
            if (!ports.isFree(candidate)) {
                continue;
            }
            String refused = ports.reserve(candidate);
            if (refused == null) {
                int next = attempt + 1;
                bind(candidate, () -> pickAndBind(candidates, next));
                return;
            }
            if (refused.contains("maxPortsPerClient")) {
                refuse(refused);
                return;
            }
        }
        refuse("no free UDP port among the server's allowPorts");
    }

    private void bind(int wanted, Runnable onInUse) {
        String host = ports.bindAddr();
        UdpFront front = new UdpFront("proxy [" + request.qualifiedName() + "]", this::open, packetSize,
                UdpLimits.MAX_ASSOCIATIONS, UdpLimits.IDLE_NANOS);
        ChannelFuture binding = UdpSockets.configure(new Bootstrap(), Transports.datagramChannel(), packetSize)
                .group(session.link().eventLoop())
                .channel(Transports.datagramChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .handler(front)
                .bind(host, wanted);
        binding.addListener(f -> session.link().eventLoop().execute(() -> {
            if (!f.isSuccess()) {
                ports.release(wanted);
                boolean inUse = BindFailures.addressInUse(f.cause());
                if (onInUse != null && inUse) {
                    onInUse.run();
                    return;
                }
                refuse(inUse ? "UDP port " + wanted + " is already in use on " + host
                        : "failed to bind on [" + host + ":" + wanted + "/udp]: " + f.cause().getMessage());
                return;
            }
            channel = binding.channel();
            port = ((InetSocketAddress) channel.localAddress()).getPort();
            reserved = wanted == 0 ? port : wanted;
            if (wanted == 0) {
                ports.bound(port);
            }
            log.info("{} client {} proxy [{}] listening on {}:{} (UDP)", session.link().control(), session.id(),
                    request.qualifiedName(), host, port);
            if (!started.trySuccess(this)) {
                close(); // the session closed meanwhile
            }
        }));
    }

    private MuxStream open(InetSocketAddress peer) {
        return session.link().openStream(ref, String.valueOf(peer));
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
        if (closed || channel == null) {
            return session.link().eventLoop().newSucceededFuture(null);
        }
        closed = true;
        ports.release(reserved);
        return channel.close();
    }
}
