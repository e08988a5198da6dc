package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.NewWorkConn;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.WorkConnProof;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pool mode: looks at the first control message of a new connection. A {@code NEW_WORK_CONN}
 * with a valid proof for a live session makes this a work connection: the control handlers are
 * removed, {@link PooledWorkConn} takes their place and the session's {@link WorkConnPool} gets
 * the connection. Anything else (a login) goes on to the control handler, and this handler
 * removes itself.
 *
 * <p>Threading: runs on the connection's event loop, which need not be the session's.
 */
final class WorkConnAcceptor extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(WorkConnAcceptor.class);

    private final ServerContext server;

    WorkConnAcceptor(ServerContext server) {
        this.server = server;
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
        if (!WorkConnProof.verify(server.token(), work.sessionId(), work.timestampMillis(), work.nonce(), work.proof())) {
            log.warn("{} work connection refused: wrong proof for session {}", ctx.channel(), work.sessionId());
            ctx.close();
            return;
        }
        // A pipe passes half-close on. Without this the server would close the whole work
        // connection on the client's FIN, after epoll's RDHUP handling read everything left
        // regardless of backpressure.
        ctx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        ChannelPipeline p = ctx.pipeline();
        p.remove(TunnelPipeline.IDLE);
        p.remove(TunnelPipeline.HEARTBEAT);
        p.remove(TunnelPipeline.MUX);
        p.remove(TunnelPipeline.CONTROL);
        p.replace(this, TunnelPipeline.WORK_CONN, new PooledWorkConn());
        session.pool().offer(ctx.channel());
    }
}
