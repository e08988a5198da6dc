package dev.tunnel.server;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.relay.RelayCounter;
import dev.tunnel.protocol.transport.HalfClose;
import dev.tunnel.server.proxy.AppConnection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pool mode's {@link AppConnection}: a work connection after {@code START_WORK_CONN}, carrying
 * bytes to and from the local app that the caller writes and reads itself (the client pipes it
 * to the app as it would a tcp proxy's). Sits as the work connection's last handler.
 *
 * <h3>Flow control</h3>
 * {@code AUTO_READ} is off: the socket is read again once everything it delivered was
 * {@linkplain #consumed consumed}, so a visitor that does not read stops the app's sender.
 *
 * <h3>Closing</h3>
 * EOF from the client is the app's FIN ({@code ALLOW_HALF_CLOSURE} is on for work connections);
 * a close before it, or an error, is a reset. {@link #reset} closes with RST.
 *
 * <p>Threading: the work connection's loop, where its user's public connection is registered.
 */
final class WorkConnection extends ChannelInboundHandlerAdapter implements AppConnection {
    private static final Logger log = LoggerFactory.getLogger(WorkConnection.class);

    private final Channel work;
    private StreamHandler handler;
    private long unconsumed;
    private boolean finReceived;
    private boolean outputShut;
    private boolean closed;
    private boolean handedOver;
    private Channel toFlush;

    private WorkConnection(Channel work) {
        this.work = work;
    }

    /** Takes over {@code work} (on its loop, {@code START_WORK_CONN} sent, nothing read since). */
    static WorkConnection start(Channel work) {
        WorkConnection conn = new WorkConnection(work);
        work.config().setAutoRead(false);
        work.pipeline().replace(TunnelPipeline.WORK_CONN, TunnelPipeline.WORK_CONN, conn);
        return conn;
    }

    @Override
    public EventLoop eventLoop() {
        return work.eventLoop();
    }

    @Override
    public void handler(StreamHandler handler) {
        this.handler = handler;
        if (closed) {
            handler.onReset(ResetCode.CANCEL);
        } else if (finReceived) {
            handler.onFin();
        } else {
            work.read();
        }
    }

    @Override
    public void write(ByteBuf data) {
        if (closed || outputShut) {
            data.release();
            return;
        }
        work.writeAndFlush(data, work.voidPromise());
    }

    @Override
    public void consumed(int bytes) {
        unconsumed -= bytes;
        if (unconsumed <= 0 && !finReceived && !closed && !handedOver) {
            work.read();
        }
    }

    @Override
    public boolean isWritable() {
        return !closed && !outputShut && work.isWritable();
    }

    @Override
    public boolean isOpen() {
        return !closed && !finReceived && work.isActive();
    }

    @Override
    public void shutdownOutput() {
        if (closed || outputShut) {
            return;
        }
        outputShut = true;
        HalfClose.shutdownOutputAfterWrites(work, this::closeIfDone);
    }

    @Override
    public void reset() {
        if (work.isActive()) {
            work.config().setOption(ChannelOption.SO_LINGER, 0);
        }
        work.close();
    }

    @Override
    public void flushLater(Channel socket) {
        toFlush = socket;
    }

    @Override
    public void relay(ChannelHandlerContext replaced, RelayCounter traffic) {
        handedOver = true;
        PipeRelay publicEnd = PipeRelay.replace(replaced.channel(), replaced.name()).counted(traffic);
        PipeRelay workEnd = PipeRelay.replace(work, TunnelPipeline.WORK_CONN);
        PipeRelay.join(publicEnd, workEnd);
    }

    // ---- the work connection's events ----

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf data) || handler == null) {
            ReferenceCountUtil.release(msg);
            return;
        }
        unconsumed += data.readableBytes();
        handler.onData(data);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Channel socket = toFlush;
        toFlush = null;
        if (socket != null) {
            socket.flush();
        }
        if (unconsumed <= 0 && !finReceived && !closed && handler != null) {
            work.read();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ChannelInputShutdownEvent.INSTANCE && !finReceived) {
            finReceived = true;
            if (handler != null) {
                handler.onFin();
            }
            closeIfDone();
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (work.isWritable() && handler != null && !closed) {
            handler.onWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        boolean wasDone = finReceived && outputShut;
        closed = true;
        if (!wasDone && handler != null) {
            handler.onReset(ResetCode.CANCEL);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("{} work connection failed: {}", work, cause.toString());
        reset();
    }

    private void closeIfDone() {
        if (finReceived && outputShut) {
            work.close();
        }
    }

    @Override
    public String toString() {
        return "work connection " + work;
    }
}
