package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Pong;
import dev.tunnel.protocol.ProtocolException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;

/**
 * The last handler of a session's bulk lane, behind the lane's bulk owner (see
 * {@link MuxSession}, "Lanes"): drops the pongs the owner passes on, and closes the lane, with
 * its reason told to the session's express owner, on anything else the owner passes on, on an
 * error, or when the lane hears nothing for the heartbeat timeout; the session ends with it.
 *
 * <p>Threading: runs on the lane's event loop; the reason goes to the session's loop as a task.
 */
public final class BulkLane extends ChannelInboundHandlerAdapter {
    private final MuxSession session;
    private final int heartbeatTimeout;

    /**
     * @param session          the session's express owner
     * @param heartbeatTimeout seconds of silence after which the lane (and session) closes; for the log line
     */
    public BulkLane(MuxSession session, int heartbeatTimeout) {
        this.session = session;
        this.heartbeatTimeout = heartbeatTimeout;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        boolean pong = msg instanceof ControlFrame control && control.message() instanceof Pong;
        String what = msg instanceof ControlFrame control ? control.message().getClass().getSimpleName()
                : msg.getClass().getSimpleName();
        ReferenceCountUtil.release(msg);
        if (!pong) {
            fail(ctx, "protocol error: unexpected " + what + " on the bulk lane");
        }
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
        session.bulkLaneFailed(lane, reason);
        ctx.close();
    }
}
