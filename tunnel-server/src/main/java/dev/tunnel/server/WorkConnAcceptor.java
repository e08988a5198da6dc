package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.NewWorkConn;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.ConnectionProof;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.server.plugin.PluginException;
import dev.tunnel.server.plugin.PluginOp;
import dev.tunnel.server.plugin.PluginRequests;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pool mode: looks at the first control message of a new connection. A {@code NEW_WORK_CONN}
 * with a valid proof for a live session makes this a work connection. The proof
 * ({@link ConnectionProof#WORK_CONN}) is keyed with the token of the session's account and covers the
 * challenge the control handler sent on this very connection (used once), the client's nonce
 * and this server's certificate (or no certificate on a connection without TLS), as a login
 * does; so a recorded {@code NEW_WORK_CONN} cannot be replayed. A {@code NEW_WORK_CONN} may
 * instead cover a nonce the session issued ahead ({@link IssuedNonces}: used once, expiring), sent
 * behind the client's preface: then no challenge is sent at all. The control handler and the
 * handshake decoder are removed, {@link PooledWorkConn} takes their place and the session's
 * {@link WorkConnPool} gets the connection (with how its TLS handshake went: full or resumed).
 * Anything else (a login) goes on to the control handler, and this handler
 * removes itself. With a plugin subscribed to NewWorkConn, a proven connection joins the pool only
 * once the plugins let it through (a changed content has nothing to apply to: frp checks the
 * token in it, and the proof here was checked already).
 *
 * <p>Threading: runs on the connection's event loop, which need not be the session's.
 */
final class WorkConnAcceptor extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(WorkConnAcceptor.class);

    private final ServerContext server;
    private final ServerNonce challenge;

    /** @param challenge this connection's challenge, shared with the control handler */
    WorkConnAcceptor(ServerContext server, ServerNonce challenge) {
        this.server = server;
        this.challenge = challenge;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ControlFrame frame) || !(frame.message() instanceof NewWorkConn work)) {
            ctx.pipeline().remove(this);
            ctx.fireChannelRead(msg);
            return;
        }
        ClientSession session = server.sessions().find(work.sessionId());
        if (session == null || session.pool() == null) {
            log.info("{} work connection for unknown session {}: closed", ctx.channel(), work.sessionId());
            ctx.close();
            return;
        }
        String serverNonce;
        if (work.answersIssuedNonce()) {
            challenge.answeredAhead();
            serverNonce = issuedNonce(ctx, session, work);
            if (serverNonce == null) {
                ctx.close();
                return;
            }
        } else {
            serverNonce = challenge.take();
        }
        if (serverNonce == null || !LoginProof.wellFormedNonce(work.nonce()) || !verify(ctx, session, work, serverNonce)) {
            log.warn("{} work connection refused: wrong proof for session {}", ctx.channel(), work.sessionId());
            failedLogin(ctx);
            ctx.close();
            return;
        }
        if (!server.plugins().handles(PluginOp.NEW_WORK_CONN)) {
            admit(ctx, session);
            return;
        }
        boolean autoRead = ctx.channel().config().isAutoRead();
        ctx.channel().config().setAutoRead(false);
        server.plugins().run(PluginOp.NEW_WORK_CONN, PluginRequests.newWorkConn(session.userInfo(),
                work.timestampMillis() / 1000), ctx.executor()).addListener(f -> {
                    if (!ctx.channel().isActive()) {
                        return;
                    }
                    if (!f.isSuccess()) {
                        log.warn("{} work connection for session {} refused: {}", ctx.channel(), work.sessionId(),
                                PluginException.of(f.cause(), PluginOp.NEW_WORK_CONN).getMessage());
                        ctx.close();
                        return;
                    }
                    ctx.channel().config().setAutoRead(autoRead);
                    admit(ctx, session);
                });
    }

    /**
     * The issued nonce {@code work} answers, used up; null (after a log line) if this session did
     * not issue it, it was used before, or it expired. An unknown nonce on a live session is what
     * a replay looks like, and counts as a failed login for the address; an expired one is a
     * slow client's, and does not.
     */
    private String issuedNonce(ChannelHandlerContext ctx, ClientSession session, NewWorkConn work) {
        IssuedNonces issued = session.pool().issuedNonces();
        IssuedNonces.Outcome outcome = issued == null ? IssuedNonces.Outcome.UNKNOWN : issued.take(work.issuedNonce());
        switch (outcome) {
            case VALID:
                return work.issuedNonce();
            case EXPIRED:
                log.warn("{} work connection for session {} refused: its nonce expired ({} s after it was issued)",
                        ctx.channel(), work.sessionId(), IssuedNonces.LIFETIME_SECONDS);
                return null;
            default:
                log.warn("{} work connection for session {} refused: its nonce was not issued to the session or was"
                        + " used already (a replay?)", ctx.channel(), work.sessionId());
                failedLogin(ctx);
                return null;
        }
    }

    /** The connection is proven (and let through by the plugins): it joins the session's pool. */
    private void admit(ChannelHandlerContext ctx, ClientSession session) {
        // The client's work connection reads the preface first: it leaves with the first thing
        // written here (START_WORK_CONN or a keepalive PING) when no challenge carried it.
        challenge.writePreface(ctx);
        // A pipe passes half-close on. Without this the server would close the whole work
        // connection on the client's FIN, after epoll's RDHUP handling read everything left
        // regardless of backpressure.
        ctx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        ChannelPipeline p = ctx.pipeline();
        p.remove(TunnelPipeline.CONTROL);
        p.replace(this, TunnelPipeline.WORK_CONN, new PooledWorkConn());
        p.remove(TunnelPipeline.CONTROL_DECODER); // anything the client sent behind NEW_WORK_CONN reaches PooledWorkConn
        SslHandler tls = p.get(SslHandler.class);
        if (tls != null) {
            session.pool().tlsSessions().record(tls);
        }
        session.pool().offer(ctx.channel());
    }

    /** Counts a failed login for the connection's address (the per-address backoff). */
    private void failedLogin(ChannelHandlerContext ctx) {
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null) {
            server.throttle().failed(a.getAddress());
        }
    }

    private boolean verify(ChannelHandlerContext ctx, ClientSession session, NewWorkConn work, String serverNonce) {
        return session.proves(ConnectionProof.WORK_CONN, serverNonce, work.nonce(), work.proof(),
                server.authenticator().ownBinding(), ctx.pipeline().get(SslHandler.class) != null);
    }
}
