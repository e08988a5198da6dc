package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.ProtocolException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * The last handler of a session's bulk lane (see {@link MuxSession}, "Lanes"): hands what the
 * lane reads, its writability and why it fails to the session, which writes to the lane itself.
 * A lane that hears nothing for the heartbeat timeout is closed, and with it the session.
 *
 * <p>Threading: runs on the lane's event loop; everything it hands over runs on the session's
 * loop, in order: at once, since the lane runs on the session's loop, except on a server whose
 * transport cannot move channels between loops (io_uring).
 */
public final class BulkLane extends ChannelInboundHandlerAdapter {
    private final MuxSession session;
    private final int heartbeatTimeout;

    /** @param heartbeatTimeout seconds of silence after which the lane (and session) closes; for the log line */
    public BulkLane(MuxSession session, int heartbeatTimeout) {
        this.session = session;
        this.heartbeatTimeout = heartbeatTimeout;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Channel lane = ctx.channel();
        session.onLoop(() -> session.bulkRead(lane, msg));
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        session.onLoop(session::bulkReadComplete);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        session.onLoop(session::wakeWaiting);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.READER_IDLE) {
            fail(ctx, "heard nothing from the peer for " + heartbeatTimeout + " s (heartbeatTimeout)");
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        fail(ctx, root instanceof ProtocolException ? "protocol error: " + root.getMessage()
                : root instanceof java.io.IOException ? "connection error: " + root.getMessage() : root.toString());
    }

    private void fail(ChannelHandlerContext ctx, String reason) {
        Channel lane = ctx.channel();
        session.onLoop(() -> session.bulkLaneFailed(lane, reason));
        ctx.close();
    }
}
