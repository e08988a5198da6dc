package dev.tunnel.server.proxy.tcp;

import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.server.proxy.SessionLink;
import dev.tunnel.server.inbound.TrustedSources;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tcp load-balancing group: one public port, opened by the group's first proxy (under its
 * account's {@code allowPorts} and {@code maxPortsPerClient}, and counted there until the group
 * closes), and the proxies that joined it, from any client. Each public connection goes to the
 * next member in turn whose session is up; a member that leaves (its proxy closed or its client
 * gone) gets no more, and the others keep serving. The port closes when the last member leaves.
 *
 * <p>A proxy joins only with the group's {@code groupKey} (compared in constant time) and the
 * same {@code remotePort} the first one asked for (0 = the port the server picked), as in frp.
 *
 * <p>Threading: accepts run on the opener's session loop, joins and leaves on the members'; the
 * members and the state are guarded by this object, and a connection is handed to its member's
 * loop before the member's link sees it.
 */
final class TcpGroup {
    private static final Logger log = LoggerFactory.getLogger(TcpGroup.class);

    private final String name;
    private final byte[] key;
    private final int requestedPort;
    private final TcpGroups registry;
    private final TrustedSources trust;
    private final List<Member> members = new ArrayList<>();
    /** Joins that arrived while the port was being opened. */
    private final List<Runnable> waiting = new ArrayList<>();
    private TcpProxy port;
    private boolean closed;
    private int next;

    TcpGroup(String name, String key, int requestedPort, TcpGroups registry, TrustedSources trust) {
        this.trust = trust;
        this.name = name;
        this.key = key.getBytes(StandardCharsets.UTF_8);
        this.requestedPort = requestedPort;
        this.registry = registry;
    }

    String name() {
        return name;
    }

    /** The first proxy: opens the port on its session, then becomes the first member. */
    Future<RunningProxy> open(ProxyRequest request, ProxySession session) {
        Promise<RunningProxy> joined = session.link().eventLoop().newPromise();
        TcpProxy opening = new TcpProxy(request, session, new Dispatch(), trust);
        opening.start(requestedPort).addListener(f -> {
            List<Runnable> queued;
            synchronized (this) {
                if (f.isSuccess()) {
                    port = opening;
                } else {
                    closed = true;
                }
                queued = new ArrayList<>(waiting);
                waiting.clear();
            }
            if (!f.isSuccess()) {
                registry.remove(this);
                joined.setFailure(f.cause());
            } else {
                Member first = add(request.proxy(), session.link());
                log.info("{} group [{}] opened on port {} by proxy [{}]", session.link().control(), name,
                        opening.remotePort(), request.qualifiedName());
                joined.setSuccess(first);
            }
            queued.forEach(Runnable::run);
        });
        return joined;
    }

    /**
     * A proxy joining the group: its member once the port is open, a refusal naming the key or
     * the port, or null when the group has closed meanwhile (the caller looks it up again).
     */
    Future<RunningProxy> join(String groupKey, int remotePort, ProxyRequest request, ProxySession session) {
        Promise<RunningProxy> joined = session.link().eventLoop().newPromise();
        synchronized (this) {
            if (closed) {
                return null;
            }
            if (!MessageDigest.isEqual(key, groupKey.getBytes(StandardCharsets.UTF_8))) {
                return joined.setFailure(new ProxyRefusedException("loadBalancer.groupKey does not match the key of"
                        + " group \"" + name + "\" (every proxy of a group must have the same groupKey)"));
            }
            if (remotePort != requestedPort) {
                return joined.setFailure(new ProxyRefusedException("group \"" + name + "\" listens on remotePort "
                        + (requestedPort == 0 ? "0 (a port the server picked)" : Integer.toString(requestedPort))
                        + "; this proxy asks for " + remotePort + " (every proxy of a group must ask for the same"
                        + " remotePort)"));
            }
            if (!session.ports().allowed(remotePort)) {
                return joined.setFailure(new ProxyRefusedException("port " + remotePort
                        + " is not allowed by the server (allowPorts)"));
            }
            if (port == null) {
                waiting.add(() -> session.link().eventLoop().execute(() -> {
                    Future<RunningProxy> again = join(groupKey, remotePort, request, session);
                    if (again == null) {
                        joined.tryFailure(new ProxyRefusedException("group \"" + name + "\" could not open its"
                                + " port; see its first proxy's error"));
                    } else {
                        again.addListener(f -> {
                            if (f.isSuccess()) {
                                joined.trySuccess((RunningProxy) f.getNow());
                            } else {
                                joined.tryFailure(f.cause());
                            }
                        });
                    }
                }));
                return joined;
            }
        }
        Member member = add(request.proxy(), session.link());
        log.info("{} proxy [{}] joined group [{}] on port {}", session.link().control(), request.qualifiedName(), name,
                member.remotePort());
        return joined.setSuccess(member);
    }

    private synchronized Member add(ProxyRef proxy, SessionLink link) {
        Member member = new Member(proxy, link);
        members.add(member);
        return member;
    }

    /** Where the group's listener sends connections: each to the next live member, on that member's loop. */
    private final class Dispatch implements ConnectionSink {
        @Override
        public void accept(Channel child) {
            Member target = next();
            if (target == null) {
                child.unsafe().closeForcibly();
                return;
            }
            onLoopOf(target, () -> target.link.accept(child, target.proxy));
        }

        @Override
        public void acceptAfterHeader(Channel publicConn, ByteBuf firstBytes) {
            Member target = next();
            if (target == null) {
                ReferenceCountUtil.safeRelease(firstBytes);
                publicConn.close();
                return;
            }
            onLoopOf(target, () -> target.link.acceptAfterHeader(publicConn, firstBytes, target.proxy));
        }

        private void onLoopOf(Member target, Runnable task) {
            if (target.link.eventLoop().inEventLoop()) {
                task.run();
            } else {
                target.link.eventLoop().execute(task);
            }
        }
    }

    /** The next live member, round robin; null when none is live. */
    private synchronized Member next() {
        Member chosen = null;
        for (int i = 0; i < members.size() && chosen == null; i++) {
            Member candidate = members.get(next++ % members.size());
            if (candidate.link.isActive()) {
                chosen = candidate;
            }
        }
        if (next >= members.size()) {
            next = 0;
        }
        return chosen;
    }

    /** Members now (tests and logs). */
    synchronized int size() {
        return members.size();
    }

    /** One proxy of the group, as its session runs it. */
    private final class Member implements RunningProxy {
        final ProxyRef proxy;
        final SessionLink link;

        Member(ProxyRef proxy, SessionLink link) {
            this.proxy = proxy;
            this.link = link;
        }

        @Override
        public int remotePort() {
            return port.remotePort();
        }

        /** Leaves the group; the last member closes its port. */
        @Override
        public Future<?> close() {
            TcpProxy closing = null;
            synchronized (TcpGroup.this) {
                if (!members.remove(this)) {
                    return link.eventLoop().newSucceededFuture(null);
                }
                if (members.isEmpty() && waiting.isEmpty()) {
                    closed = true;
                    closing = port;
                }
            }
            if (closing == null) {
                log.info("{} proxy [{}] left group [{}]", link.control(), proxy.name(), name);
                return link.eventLoop().newSucceededFuture(null);
            }
            registry.remove(TcpGroup.this);
            log.info("{} group [{}]: its last proxy [{}] left; port {} closes", link.control(), name, proxy.name(),
                    closing.remotePort());
            return closing.close();
        }
    }
}
