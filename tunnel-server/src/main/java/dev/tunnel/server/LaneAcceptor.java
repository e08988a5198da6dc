package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.JoinLane;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.ConnectionProof;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.mux.BulkLane;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.transport.LoopMove;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mux mode with the express lane offered: looks at the first control message of a new
 * connection. A {@code JOIN_LANE} with a valid proof for a live session makes this connection
 * the session's bulk lane. The proof ({@link ConnectionProof#LANE}) is keyed with the token of the session's
 * account and covers the challenge the control handler sent on this very connection (taken once),
 * the client's nonce and this server's certificate (or none on a connection without TLS), as a
 * login does, so a recorded join cannot be replayed; a session takes one lane. A refused join is
 * logged, counts as a failed login for the address ({@link LoginThrottle}) and closes the
 * connection. Anything else (a login) goes on to the control handler, and this handler removes
 * itself.
 *
 * <h3>Threading</h3>
 * A connection is accepted on any loop of the server's group. A joining lane moves
 * ({@link LoopMove}) to one of the server's bulk loops ({@link ServerContext#bulkLoops}), which
 * run no session, so that the streams that move to it (with their sockets) do their reads, TLS
 * and writes beside the sparse streams of every session, not in front of them. On
 * io_uring, which cannot move a channel, the lane stays where it was accepted (and no stream
 * moves to it: io_uring sockets cannot move either).
 */
final class LaneAcceptor extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(LaneAcceptor.class);

    private final ServerContext server;
    private final ServerNonce challenge;
    private final int heartbeatTimeout;

    /** @param challenge this connection's challenge, shared with the control handler */
    LaneAcceptor(ServerContext server, ServerNonce challenge, int heartbeatTimeout) {
        this.server = server;
        this.challenge = challenge;
        this.heartbeatTimeout = heartbeatTimeout;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ControlFrame frame) || !(frame.message() instanceof JoinLane join)) {
            ctx.pipeline().remove(this);
            ctx.fireChannelRead(msg);
            return;
        }
        String serverNonce = challenge.take();
        ClientSession session = server.sessions().findForLane(join.sessionId());
        if (session == null || session.pool() != null) {
            log.info("{} lane join for unknown session {}: closed", ctx.channel(),
                    ServerControlHandler.printable(join.sessionId()));
            ctx.close();
            return;
        }
        if (serverNonce == null || !LoginProof.wellFormedNonce(join.nonce()) || !verify(ctx, session, join, serverNonce)) {
            log.warn("{} lane join refused: wrong proof for session {}", ctx.channel(), session.id());
            if (ctx.channel().remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null) {
                server.throttle().failed(a.getAddress());
            }
            ctx.close();
            return;
        }
        MuxSession mux = session.mux();
        if (!mux.claimBulkLane()) {
            log.warn("{} lane join refused: session {} has its bulk lane already", ctx.channel(), session.id());
            ctx.close();
            return;
        }
        Channel lane = ctx.channel();
        ctx.pipeline().remove(TunnelPipeline.CONTROL);
        EventLoop home = server.bulkLoops() != null ? server.bulkLoops().next() : LoopMove.another(mux.eventLoop());
        if (home == lane.eventLoop() || !LoopMove.canMove(lane)
                || server.bulkLoops() == null && lane.eventLoop() != mux.eventLoop()) {
            join(lane, session);
            return;
        }
        // what the client sent behind its join waits in controlDecoder, the rest in the socket
        lane.config().setAutoRead(false);
        LoopMove.moveTo(lane, home, failure -> {
            if (failure != null) {
                log.warn("{} bulk lane of session {} closed: it could not move to its event loop: {}",
                        lane, session.id(), failure.toString());
                return;
            }
            if (!lane.isOpen()) {
                log.info("{} bulk lane of session {} closed before it joined", lane, session.id());
                return;
            }
            join(lane, session);
            lane.config().setAutoRead(true);
        });
    }

    /** Makes {@code lane} the bulk lane of {@code session}, on the loop it runs on from now on. */
    private void join(Channel lane, ClientSession session) {
        log.info("{} joined session {} as its bulk lane", lane, session.id());
        MuxSession mux = session.mux();
        MuxSession owner = mux.newBulkOwner();
        TunnelPipeline.joinServerLane(lane.pipeline(), owner, new BulkLane(mux, heartbeatTimeout), heartbeatTimeout);
        mux.attachBulkLane(lane, owner);
    }

    private boolean verify(ChannelHandlerContext ctx, ClientSession session, JoinLane join, String serverNonce) {
        return session.proves(ConnectionProof.LANE, serverNonce, join.nonce(), join.proof(),
                server.authenticator().ownBinding(), ctx.pipeline().get(SslHandler.class) != null);
    }
}
