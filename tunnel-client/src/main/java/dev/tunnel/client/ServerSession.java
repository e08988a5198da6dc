package dev.tunnel.client;

import dev.tunnel.client.config.ServerEndpoint;
import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Goodbye;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.transport.Failures;
import dev.tunnel.protocol.transport.LastWrites;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server's session: connects, logs in (registering every proxy), keeps it with its
 * heartbeat, and when it is lost connects again (1 s doubling to the backoff limit, with
 * jitter; 20 s after a refused token) until {@link #retire} or {@link #goodbye}. What happens
 * goes to the {@link Events} of its {@link ServerSet}.
 *
 * <h3>Threading</h3>
 * Any thread. The state is written under this object's lock; the connection's callbacks run on
 * its event loop; {@link Events} are called without the lock held.
 */
final class ServerSession {
    private static final Logger log = LoggerFactory.getLogger(ServerSession.class);


    /** What a session reports to its {@link ServerSet}. */
    interface Events {
        void loggedIn(ServerSession session);

        /** The connection failed or was lost; true = do not try again (the first login failed, for good). */
        boolean lost(ServerSession session, String reason);

        void proxyResult(ServerSession session, NewProxyResult result);
    }

    private final int index;
    private final ServerEndpoint endpoint;
    private final ServerDialer dialer;
    private final ClientCredentials credentials;
    private final EventLoopGroup group;
    private final int maxBackoffSeconds;
    private final Events events;
    private ServerStatus.State state = ServerStatus.State.IDLE;
    private Instant since = Instant.now();
    private String lastError = "";
    private boolean running;
    private Channel channel;
    private boolean online;
    private int attempts;
    private boolean slowRetry;
    /** The connection that ends next found the server without the PAKE login: made again at once. */
    private boolean pakeFallback;
    private CompletableFuture<Void> portsReleased = new CompletableFuture<>();

    ServerSession(int index, ServerEndpoint endpoint, ServerDialer dialer, EventLoopGroup group, int maxBackoffSeconds,
                  Events events) {
        this.index = index;
        this.endpoint = endpoint;
        this.dialer = dialer;
        this.credentials = dialer.credentials(endpoint);
        this.group = group;
        this.maxBackoffSeconds = maxBackoffSeconds;
        this.events = events;
    }

    /** Its place in the client's list of servers (0 = the first). */
    int index() {
        return index;
    }

    ServerEndpoint endpoint() {
        return endpoint;
    }

    synchronized ServerStatus status() {
        return new ServerStatus(endpoint.address(), state, since, lastError);
    }

    synchronized boolean isOnline() {
        return online;
    }

    /** True from {@link #start} until {@link #retire} (or a first login that failed for good). */
    synchronized boolean isRunning() {
        return running;
    }

    /** The session's mux while it is logged in, else null. */
    synchronized MuxSession mux() {
        return online && channel != null ? channel.pipeline().get(MuxSession.class) : null;
    }

    /** Starts connecting (and reconnecting until {@link #retire}); nothing if it runs already. */
    void start() {
        synchronized (this) {
            if (running) {
                return;
            }
            running = true;
        }
        connect();
    }

    /** Dials outside the lock: a dial that fails at once reports on this thread. */
    private void connect() {
        synchronized (this) {
            if (!running) {
                return;
            }
            to(ServerStatus.State.CONNECTING);
        }
        ChannelFuture connecting = dialer.connect(endpoint, credentials, new Listener());
        synchronized (this) {
            channel = connecting.channel();
        }
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                lost("cannot connect to server " + endpoint.address() + ": "
                        + Failures.describeConnect(f.cause(), endpoint.address()));
            }
        });
    }

    /**
     * Stops for good, letting connections in flight finish: the server is told this client is
     * leaving it (it closes its public ports for it at once), the session's streams (pool mode:
     * its work connections carrying a public connection) get up to {@code drainMillis} to end,
     * then the connection closes. Completes when it is closed.
     */
    CompletableFuture<Void> retire(long drainMillis) {
        Channel ch;
        synchronized (this) {
            running = false;
            ch = online ? channel : null;
            if (ch == null) {
                to(ServerStatus.State.STOPPED);
                if (channel != null) {
                    channel.close();
                }
                return CompletableFuture.completedFuture(null);
            }
            to(ServerStatus.State.DRAINING);
        }
        goodbye(ch);
        CompletableFuture<Void> closed = new CompletableFuture<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(drainMillis);
        ch.eventLoop().execute(() -> closeWhenDrained(ch, ch.pipeline().get(MuxSession.class),
                ch.pipeline().get(WorkConnector.class), deadline, closed));
        return closed;
    }

    /**
     * Tells the server this client is leaving it and stops reconnecting (the client stops);
     * completes when the server confirms its ports are free. The connection stays open.
     */
    CompletableFuture<Void> goodbye() {
        Channel ch;
        synchronized (this) {
            running = false;
            ch = online ? channel : null;
        }
        if (ch == null) {
            return CompletableFuture.completedFuture(null);
        }
        goodbye(ch);
        return portsReleased;
    }

    /** Closes the connection once its last writes are out; completes when it is closed. */
    ChannelFuture close() {
        Channel ch;
        synchronized (this) {
            running = false;
            ch = channel;
        }
        return ch == null ? null : LastWrites.flushThenClose(ch, LastWrites.TIMEOUT_MILLIS);
    }

    private void goodbye(Channel ch) {
        dialer.sessionEnding(ch);
        ch.writeAndFlush(new ControlFrame(new Goodbye("client leaving this server")));
    }

    /**
     * Closes {@code ch} once nothing is in flight: no stream of its mux and, in pool mode, no work
     * connection carrying a public connection; or at {@code deadline}, closing what is left.
     */
    private void closeWhenDrained(Channel ch, MuxSession mux, WorkConnector work, long deadline,
                                  CompletableFuture<Void> closed) {
        int streams = mux == null || !ch.isActive() ? 0 : mux.streamCount();
        int open = streams + (work == null ? 0 : work.busyCount()); // work connections outlive the control one
        if (open > 0 && System.nanoTime() < deadline) {
            ch.eventLoop().schedule(() -> closeWhenDrained(ch, mux, work, deadline, closed), 100, TimeUnit.MILLISECONDS);
            return;
        }
        if (open > 0) {
            log.warn("server {}: closing {} connections still open after the drain timeout", endpoint, open);
            if (work != null) {
                work.closeBusy();
            }
        }
        LastWrites.flushThenClose(ch, LastWrites.TIMEOUT_MILLIS).addListener(f -> closed.complete(null));
    }

    /** The connection failed or ended: try again later, unless stopped or told to give up. */
    private void lost(String reason) {
        synchronized (this) {
            channel = null;
            online = false;
            lastError = reason;
            if (!running) {
                to(ServerStatus.State.STOPPED);
                return;
            }
            if (pakeFallback) {
                pakeFallback = false;
                log.info("server {}: {}; reconnecting at once", endpoint, reason);
                group.execute(this::connect);
                return;
            }
            to(ServerStatus.State.RETRY_WAIT);
        }
        if (events.lost(this, reason)) {
            synchronized (this) {
                running = false;
                to(ServerStatus.State.STOPPED);
            }
            return;
        }
        long delayMillis;
        synchronized (this) {
            int delay = slowRetry ? 20 : Math.min(maxBackoffSeconds, 1 << Math.min(attempts, 5));
            attempts++;
            delayMillis = (long) (delay * 1000 * ThreadLocalRandom.current().nextDouble(0.8, 1.2));
        }
        log.warn("server {}: {}; reconnecting in {} ms", endpoint, reason, delayMillis);
        group.schedule(this::connect, delayMillis, TimeUnit.MILLISECONDS);
    }

    private void to(ServerStatus.State next) {
        if (state != next) {
            state = next;
            since = Instant.now();
        }
    }

    @Override
    public String toString() {
        return "server " + endpoint;
    }

    /** The events of the current connection. */
    private final class Listener implements SessionListener {
        @Override
        public void loggedIn(String sessionId) {
            synchronized (ServerSession.this) {
                attempts = 0;
                slowRetry = false;
                online = true;
                portsReleased = new CompletableFuture<>();
                to(running ? ServerStatus.State.ONLINE : ServerStatus.State.DRAINING);
            }
            log.info("logged in to server {} (session {})", endpoint, sessionId);
            events.loggedIn(ServerSession.this);
        }

        @Override
        public void loginRefused(int code, String reason) {
            synchronized (ServerSession.this) {
                slowRetry = code == LoginResult.AUTH_FAILED;
            }
        }

        @Override
        public void pakeFallback() {
            synchronized (ServerSession.this) {
                pakeFallback = true;
            }
        }

        @Override
        public void portsReleased() {
            CompletableFuture<Void> released;
            synchronized (ServerSession.this) {
                released = portsReleased;
            }
            released.complete(null);
        }

        @Override
        public void proxyResult(NewProxyResult result) {
            events.proxyResult(ServerSession.this, result);
        }

        @Override
        public void disconnected(String reason) {
            lost(reason == null ? "server closed the connection" : reason);
        }
    }
}
