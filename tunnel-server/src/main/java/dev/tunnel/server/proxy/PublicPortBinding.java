package dev.tunnel.server.proxy;

import dev.tunnel.runtime.BindFailures;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public port of a proxy that has one of its own (tcp, udp): reserved in its port space
 * under the account's rules ({@link PublicPorts}), bound, and released once on close. When the
 * server picks ({@code remotePort = 0} and {@code allowPorts} set), it tries the allowed ports
 * from a random one on, moving on while a port is in use, at most {@value #MAX_PICK_ATTEMPTS}.
 *
 * <p>Threading: session loop; bind results come back to it.
 */
public final class PublicPortBinding {
    private static final Logger log = LoggerFactory.getLogger(PublicPortBinding.class);
    private static final int MAX_PICK_ATTEMPTS = 64;

    /** Binds the socket (its pipeline set up by the caller) on {@code host:port}; 0 = the OS picks. */
    @FunctionalInterface
    public interface Binder {
        ChannelFuture bind(String host, int port);
    }

    private final ProxySession session;
    private final PublicPorts ports;
    private final String kind;
    private final Binder binder;
    private final Promise<RunningProxy> started;
    private RunningProxy proxy;
    private String name;
    private Channel channel;
    private int port;
    private int reserved;
    private boolean closed;

    /**
     * @param ports  the port space (TCP or UDP) of the session
     * @param kind   how refusals name a port of this space: {@code ""} for TCP, {@code "UDP "}
     * @param binder binds one candidate
     */
    public PublicPortBinding(ProxySession session, PublicPorts ports, String kind, Binder binder) {
        this.session = session;
        this.ports = ports;
        this.kind = kind;
        this.binder = binder;
        this.started = session.link().eventLoop().newPromise();
    }

    /**
     * Reserves and binds {@code remotePort}, or a port the server picks for 0, and logs where
     * {@code proxy} ({@code name} in log lines) listens. Completes with {@code proxy}, or fails
     * with a {@link ProxyRefusedException} saying why (port not allowed, in use, account limits).
     */
    public Future<RunningProxy> start(int remotePort, RunningProxy proxy, String name) {
        this.proxy = proxy;
        this.name = name;
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
        refuse("no free " + kind + "port among the server's allowPorts");
    }

    private void bind(int wanted, Runnable onInUse) {
        String host = ports.bindAddr();
        ChannelFuture binding = binder.bind(host, wanted);
        binding.addListener(f -> session.link().eventLoop().execute(() -> {
            if (!f.isSuccess()) {
                ports.release(wanted);
                boolean inUse = BindFailures.addressInUse(f.cause());
                if (onInUse != null && inUse) {
                    onInUse.run();
                    return;
                }
                String space = kind.isEmpty() ? "" : "/" + kind.trim().toLowerCase(java.util.Locale.ROOT);
                refuse(inUse ? kind + "port " + wanted + " is already in use on " + host
                        : "failed to bind on [" + host + ":" + wanted + space + "]: " + f.cause().getMessage());
                return;
            }
            channel = binding.channel();
            port = ((InetSocketAddress) channel.localAddress()).getPort();
            reserved = wanted == 0 ? port : wanted;
            if (wanted == 0) {
                ports.bound(port);
            }
            log.info("{} {} proxy [{}] listening on {}:{}{}", session.link().control(), session.label(), name,
                    host, port, kind.isEmpty() ? "" : " (" + kind.trim() + ")");
            if (!started.trySuccess(proxy)) {
                close(); // the session closed meanwhile
            }
        }));
    }

    private Future<RunningProxy> refuse(String reason) {
        started.tryFailure(new ProxyRefusedException(reason));
        return started;
    }

    /** The bound port; 0 before it is bound. */
    public int port() {
        return port;
    }

    /** The address ports are bound on. */
    public String host() {
        return ports.bindAddr();
    }

    /** Closes the socket and releases the port; once. */
    public Future<?> close() {
        if (closed || channel == null) {
            return session.link().eventLoop().newSucceededFuture(null);
        }
        closed = true;
        ports.release(reserved);
        return channel.close();
    }
}
