package dev.tunnel.protocol;

import dev.tunnel.protocol.mux.MuxSession;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends a ping every {@code intervalSeconds} through the session once it has started, and
 * closes the session (which logs why) when the {@code IdleStateHandler} in front of it reports that nothing
 * was heard for the heartbeat timeout. Intervals of -1 or 0 disable the pings.
 *
 * <p>Threading: runs on the connection's event loop.
 */
public final class Heartbeat extends ChannelInboundHandlerAdapter {
    private final MuxSession session;
    private final int intervalSeconds;
    private final int timeoutSeconds;
    private ScheduledFuture<?> pinger;

    public Heartbeat(MuxSession session, int intervalSeconds, int timeoutSeconds) {
        this.session = session;
        this.intervalSeconds = intervalSeconds;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** Starts pinging: call once login has succeeded. Also pings once at once, for the RTT. */
    public void start(ChannelHandlerContext ctx) {
        session.ping();
        if (intervalSeconds > 0 && pinger == null) {
            pinger = ctx.executor().scheduleAtFixedRate(session::ping, intervalSeconds, intervalSeconds,
                    TimeUnit.SECONDS);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.READER_IDLE) {
            session.close("heard nothing from the peer for " + timeoutSeconds + " s (heartbeatTimeout)", false);
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    private void stop() {
        if (pinger != null) {
            pinger.cancel(false);
            pinger = null;
        }
    }
}
