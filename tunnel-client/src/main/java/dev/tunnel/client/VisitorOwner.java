package dev.tunnel.client;

import io.netty.channel.ChannelFuture;
import io.netty.channel.group.ChannelGroup;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which session the visitors' local ports open their streams on, when the client has several
 * servers: the ports are bound for the first session that logs in and move to another live
 * session when it ends (bound again once the old ports are closed), so a visitor works while
 * any server does. With one server it binds and unbinds with that server's session.
 *
 * <p>Threading: any thread; the choice is made under this object's lock. Each session's
 * {@link VisitorListeners} is started and stopped on that session's event loop: {@link #sessionDown}
 * is called on it (the connection's end), {@link #sessionUp}'s binding is posted to it.
 */
final class VisitorOwner {
    private final Collection<VisitorTarget> visitors;
    private final ChannelGroup localConns;
    private final int udpPacketSize;
    private final Deque<VisitorStreams> standby = new ArrayDeque<>();
    private VisitorStreams owner;
    private VisitorListeners bound;

    VisitorOwner(Collection<VisitorTarget> visitors, ChannelGroup localConns, int udpPacketSize) {
        this.visitors = visitors;
        this.localConns = localConns;
        this.udpPacketSize = udpPacketSize;
    }

    /** A session logged in: it gets the visitors' ports if no other live session has them. */
    synchronized void sessionUp(VisitorStreams session) {
        if (visitors.isEmpty()) {
            return;
        }
        if (owner == null) {
            bindFor(session, List.of());
        } else {
            standby.add(session);
        }
    }

    /** A session ended (called on its event loop): its ports close and move to the next live session. */
    synchronized void sessionDown(VisitorStreams session) {
        if (standby.remove(session) || owner != session) {
            return;
        }
        List<ChannelFuture> closing = bound.stop();
        owner = null;
        bound = null;
        VisitorStreams next = standby.poll();
        if (next != null) {
            bindFor(next, closing);
        }
    }

    private void bindFor(VisitorStreams session, List<ChannelFuture> closing) {
        owner = session;
        VisitorListeners listeners = new VisitorListeners(visitors, localConns, udpPacketSize);
        bound = listeners;
        Runnable start = () -> session.mux().eventLoop().execute(() -> listeners.start(session));
        if (closing.isEmpty()) {
            start.run();
            return;
        }
        AtomicInteger left = new AtomicInteger(closing.size());
        closing.forEach(f -> f.addListener(done -> {
            if (left.decrementAndGet() == 0) {
                start.run();
            }
        }));
    }
}
