package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.ReqWorkConn;
import dev.tunnel.protocol.ControlMessage.StartWorkConn;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.server.inbound.VisitorAddress;
import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.tls.TlsSessions;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pool mode ({@code transport.tcpMux = false}): the idle work connections of one client
 * session, and the public connections waiting for one.
 *
 * <ul>
 *   <li>At login it asks the client for {@code min(poolCount, maxPoolCount)} connections
 *       ({@code REQ_WORK_CONN}); each one taken is replaced at once, each one that dies too.</li>
 *   <li>It never holds more than that bound idle: a connection nobody waits for beyond it is
 *       closed with a log line, whatever the client sends.</li>
 *   <li>A public connection that finds the pool empty asks for one and waits up to
 *       {@code userConnTimeout}, then is closed with a logged reason.</li>
 *   <li>With a client that listed {@code pool.issuedNonces}, each request carries one nonce per
 *       connection ({@link IssuedNonces}), so the connection proves itself without waiting for
 *       its challenge; beyond the nonces outstanding a session may hold, it asks without.</li>
 *   <li>Idle connections get a PING every keepalive interval (the client does not answer: it
 *       sends nothing before {@code START_WORK_CONN}, so nothing can cross it), which keeps
 *       NAT entries alive and makes a dead connection fail its write and leave the pool.</li>
 * </ul>
 *
 * <h3>Threading</h3>
 * Runs on the session's event loop, where the public port accepts. A work connection was
 * accepted on any worker loop and stays there (moving a registered TLS channel between loops is
 * not worth its risk); instead the public connection goes to it: {@link ProxyListener}
 * {@linkplain #reserveIdle reserves} an idle work connection before it registers the accepted
 * socket, and registers that socket on the work connection's loop, so the pipe never crosses
 * threads. Only a public connection that had to wait for a work connection
 * ({@link #take}) lives on the session's loop and is joined across loops by {@link PipeRelay}.
 */
final class WorkConnPool {
    private static final Logger log = LoggerFactory.getLogger(WorkConnPool.class);
    /** The most connections one REQ_WORK_CONN asks for: clients open no more than 100 per request. */
    static final int MAX_PER_REQUEST = 100;

    private final Channel control;
    private final String sessionId;
    private final int bound;
    private final ServerContext.PoolSettings settings;
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private final TlsSessions tls = new TlsSessions();
    /** Nonces handed out ahead; null when the client does not take them. */
    private final IssuedNonces nonces;
    private ScheduledFuture<?> keepalive;
    private int publicConns;
    /** Work connections asked for during this loop turn, sent together by {@link #sendRequests}. */
    private int pendingRequests;
    private final Runnable sendRequests = this::sendRequests;
    private boolean closed;

    /** A public connection waiting for a work connection: {@code start} takes the one that comes. */
    private static final class Waiter {
        final Channel publicConn;
        final Consumer<Channel> start;
        final Runnable expired;
        ScheduledFuture<?> timeout;

        Waiter(Channel publicConn, Consumer<Channel> start, Runnable expired) {
            this.publicConn = publicConn;
            this.start = start;
            this.expired = expired;
        }
    }

    WorkConnPool(Channel control, String sessionId, int clientPoolCount, ServerContext.PoolSettings settings) {
        this(control, sessionId, clientPoolCount, settings, null);
    }

    /** @param nonces the nonces to hand out ahead, if the client listed {@code pool.issuedNonces}; else null */
    WorkConnPool(Channel control, String sessionId, int clientPoolCount, ServerContext.PoolSettings settings,
                 IssuedNonces nonces) {
        this.nonces = nonces;
        this.control = control;
        this.sessionId = sessionId;
        this.bound = Math.max(0, Math.min(clientPoolCount, settings.maxPoolCount()));
        this.settings = settings;
    }

    private EventLoop loop() {
        return control.eventLoop();
    }

    /** Asks for the initial connections; call after the login result was sent. */
    void start() {
        if (bound > 0) {
            request(bound);
        }
        int interval = settings.keepaliveSeconds();
        if (interval > 0) {
            keepalive = loop().scheduleAtFixedRate(this::pingIdle, interval, interval, TimeUnit.SECONDS);
        }
    }

    int idleCount() {
        return idle.size();
    }

    /** A work connection of this session has arrived (any thread). */
    void offer(Channel work) {
        loop().execute(() -> {
            if (closed || !work.isActive()) {
                work.close();
                return;
            }
            Waiter waiter;
            while ((waiter = waiters.poll()) != null) {
                waiter.timeout.cancel(false);
                if (waiter.publicConn.isActive()) {
                    waiter.start.accept(work);
                    return;
                }
            }
            if (idle.size() >= bound) {
                log.info("{} session {}: client sent a work connection beyond the pool bound ({}): closed", work,
                        sessionId, bound);
                work.close();
                return;
            }
            idle.add(work);
            work.closeFuture().addListener(f -> {
                try {
                    loop().execute(() -> {
                        if (idle.remove(work) && !closed) {
                            log.debug("{} session {}: idle work connection closed; asking for a replacement", work,
                                    sessionId);
                            request(1);
                        }
                    });
                } catch (RejectedExecutionException stopping) {
                    // the server is stopping: nothing to replace
                }
            });
        });
    }

    /** The nonces this session handed out ahead, or null if its client answers challenges only (any thread). */
    IssuedNonces issuedNonces() {
        return nonces;
    }

    /** How the TLS handshakes of this session's work connections went (full or resumed; any thread). */
    TlsSessions tlsSessions() {
        return tls;
    }

    /** Public connections of this session that ride or wait for a work connection (session loop). */
    int publicConnCount() {
        return publicConns;
    }

    /**
     * Counts a new public connection of this session until it closes (session loop; before
     * {@link #reserveIdle} or {@link #take}).
     */
    void track(Channel publicConn) {
        publicConns++;
        publicConn.closeFuture().addListener(f -> {
            try {
                loop().execute(() -> publicConns--);
            } catch (RejectedExecutionException stopping) {
                // the server is stopping: nobody counts any more
            }
        });
    }

    /**
     * Takes an idle work connection for a public connection that is not registered yet (session
     * loop), asking the client for a replacement; null if none is idle. The caller registers the
     * public connection on the returned connection's loop and then calls {@link #startReserved}.
     */
    Channel reserveIdle() {
        Channel work;
        while ((work = pollIdle()) != null) {
            if (work.isActive()) {
                request(1);
                return work;
            }
        }
        return null;
    }

    /**
     * Starts a public connection on the work connection {@link #reserveIdle} gave (on the work
     * connection's loop, where the public connection was registered). If the work connection died
     * meanwhile, the public connection waits for another one like any other.
     */
    void startReserved(Channel work, Channel publicConn, PipeRelay publicEnd, String proxyName, int proxyId) {
        startPipe(work, publicConn, publicEnd, proxyName, proxyId);
    }

    /** A new public connection (on the session loop): start it on an idle work connection, or wait for one. */
    void take(Channel publicConn, PipeRelay publicEnd, String proxyName, int proxyId) {
        obtain(publicConn, work -> startPipe(work, publicConn, publicEnd, proxyName, proxyId), () -> {
            log.warn("{} proxy [{}]: no work connection from the client within userConnTimeout ({} s):"
                    + " closing the public connection", publicConn, proxyName, settings.userConnTimeoutSeconds());
            publicConn.close();
        });
    }

    /**
     * Starts a work connection for {@code proxyId} whose bytes the caller reads and writes itself
     * (the vhost's requests of {@code publicConn}), on the session loop: an idle one, else the
     * next to arrive within {@code userConnTimeout}. {@code started} gets it on its own loop,
     * {@code START_WORK_CONN} sent and nothing read since; or null, on the session loop, when
     * none came in time. Nothing happens once {@code publicConn} is closed.
     */
    void lease(Channel publicConn, String proxyName, int proxyId, Consumer<Channel> started) {
        obtain(publicConn, work -> startLeased(work, publicConn, proxyName, proxyId, started), () -> {
            log.warn("{} proxy [{}]: no work connection from the client within userConnTimeout ({} s)",
                    publicConn, proxyName, settings.userConnTimeoutSeconds());
            started.accept(null);
        });
    }

    /** Hands {@code publicConn} an idle work connection, or queues it until one arrives or the timeout. */
    private void obtain(Channel publicConn, Consumer<Channel> start, Runnable expired) {
        Channel work;
        while ((work = pollIdle()) != null) {
            if (work.isActive()) {
                start.accept(work);
                request(1);
                return;
            }
        }
        if (closed) {
            publicConn.close();
            return;
        }
        Waiter waiter = new Waiter(publicConn, start, expired);
        waiter.timeout = loop().schedule(() -> {
            if (waiters.remove(waiter)) {
                waiter.expired.run();
            }
        }, settings.userConnTimeoutSeconds(), TimeUnit.SECONDS);
        waiters.add(waiter);
        publicConn.closeFuture().addListener(f -> waiter.timeout.cancel(false));
        request(1);
    }

    /** An idle connection, preferring one on the session's loop: then its pipe never crosses threads. */
    private Channel pollIdle() {
        for (Iterator<Channel> it = idle.iterator(); it.hasNext(); ) {
            Channel work = it.next();
            if (work.eventLoop() == loop()) {
                it.remove();
                return work;
            }
        }
        return idle.poll();
    }

    /** Sends START_WORK_CONN on {@code work} and turns both connections into one pipe. */
    private void startPipe(Channel work, Channel publicConn, PipeRelay publicEnd, String proxyName, int proxyId) {
        Runnable start = () -> {
            if (!work.isActive()) {
                loop().execute(() -> {
                    if (publicConn.isActive()) {
                        take(publicConn, publicEnd, proxyName, proxyId);
                    }
                });
                return;
            }
            String source = String.valueOf(VisitorAddress.of(publicConn));
            work.config().setAutoRead(false);
            PipeRelay workEnd = PipeRelay.replace(work, TunnelPipeline.WORK_CONN);
            // Not flushed here: the public end's start (join) writes the bytes the public
            // connection sent so far behind it and flushes, so both leave in one TLS record.
            work.write(new ControlFrame(new StartWorkConn(proxyId, source)));
            work.pipeline().remove(TunnelPipeline.FRAME_ENCODER);
            PipeRelay.join(publicEnd, workEnd);
            log.debug("{} proxy [{}] public connection {} rides work connection {}", control, proxyName, source, work);
        };
        if (work.eventLoop().inEventLoop()) {
            start.run();
        } else {
            work.eventLoop().execute(start);
        }
    }

    /** Sends START_WORK_CONN on {@code work} and gives it to the one who leased it. */
    private void startLeased(Channel work, Channel publicConn, String proxyName, int proxyId,
                             Consumer<Channel> started) {
        Runnable start = () -> {
            if (!work.isActive()) {
                loop().execute(() -> {
                    if (publicConn.isActive()) {
                        lease(publicConn, proxyName, proxyId, started);
                    }
                });
                return;
            }
            String source = String.valueOf(VisitorAddress.of(publicConn));
            work.config().setAutoRead(false);
            work.writeAndFlush(new ControlFrame(new StartWorkConn(proxyId, source)));
            work.pipeline().remove(TunnelPipeline.FRAME_ENCODER);
            log.debug("{} proxy [{}] requests of {} ride work connection {}", control, proxyName, source, work);
            started.accept(work);
        };
        if (work.eventLoop().inEventLoop()) {
            start.run();
        } else {
            work.eventLoop().execute(start);
        }
    }

    /**
     * Asks the client for {@code count} more connections. Requests made during one loop turn (every
     * public connection accepted in it takes or waits for one) leave as one {@code REQ_WORK_CONN},
     * so a burst of connections costs the control connection one TLS record and one write, not
     * one per connection. Session loop.
     */
    private void request(int count) {
        if (closed || count <= 0) {
            return;
        }
        if (pendingRequests == 0) {
            loop().execute(sendRequests);
        }
        pendingRequests += count;
    }

    private void sendRequests() {
        int count = pendingRequests;
        pendingRequests = 0;
        if (closed || !control.isActive()) {
            return;
        }
        while (count > 0) {
            int n = Math.min(count, MAX_PER_REQUEST);
            List<String> issued = nonces == null ? List.of() : nonces.issue(n);
            if (!issued.isEmpty()) {
                n = issued.size();
                control.write(new ControlFrame(ReqWorkConn.issued(issued)));
            } else {
                control.write(new ControlFrame(new ReqWorkConn(n)));
            }
            count -= n;
        }
        control.flush();
    }

    private void pingIdle() {
        for (Channel work : idle) {
            work.writeAndFlush(new ControlFrame(new Ping(System.nanoTime())));
        }
    }

    /** Closes idle connections and the public connections still waiting; connections in use go on. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (nonces != null) {
            nonces.clear();
        }
        if (tls.full() + tls.resumed() > 0) {
            log.info("{} session {} ended: work connections: {}{}", control, sessionId, tls,
                    nonces == null ? "" : "; " + nonces.used() + " proven with nonces issued ahead");
        }
        if (keepalive != null) {
            keepalive.cancel(false);
        }
        Channel work;
        while ((work = idle.poll()) != null) {
            work.close();
        }
        Waiter w;
        while ((w = waiters.poll()) != null) {
            w.timeout.cancel(false);
            log.info("{}: session {} ended while the public connection waited for a work connection:"
                    + " closing it", w.publicConn, sessionId);
            w.publicConn.close();
        }
    }
}
