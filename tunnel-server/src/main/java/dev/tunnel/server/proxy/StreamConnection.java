package dev.tunnel.server.proxy;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.relay.RelayCounter;
import dev.tunnel.protocol.relay.StreamRelay;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;

/**
 * Mux mode's {@link AppConnection}: one stream of the session's mux connection, on the session's
 * loop; its relay after an upgrade is a {@link StreamRelay}.
 */
public class StreamConnection implements AppConnection { // not final: tests place it on their loops
    private final MuxStream stream;
    private final EventLoop loop;

    /** @param loop the stream's session loop */
    public StreamConnection(MuxStream stream, EventLoop loop) {
        this.stream = stream;
        this.loop = loop;
    }

    @Override
    public EventLoop eventLoop() {
        return loop;
    }

    @Override
    public void handler(StreamHandler handler) {
        stream.handler(handler);
    }

    @Override
    public void write(ByteBuf data) {
        stream.write(data);
    }

    @Override
    public void consumed(int bytes) {
        stream.consumed(bytes);
    }

    @Override
    public boolean isWritable() {
        return stream.isWritable();
    }

    @Override
    public boolean isOpen() {
        return !stream.isClosed();
    }

    @Override
    public void shutdownOutput() {
        stream.shutdownOutput();
    }

    @Override
    public void reset() {
        stream.reset(ResetCode.CANCEL);
    }

    @Override
    public void flushLater(Channel socket) {
        stream.flushLater(socket);
    }

    @Override
    public void relay(ChannelHandlerContext replaced, RelayCounter traffic) {
        ChannelPipeline pipeline = replaced.pipeline();
        pipeline.replace(replaced.handler(), TunnelPipeline.RELAY, new StreamRelay(stream, traffic));
        pipeline.fireChannelActive(); // the relay starts as on a new connection
    }

    @Override
    public String toString() {
        return stream.toString();
    }
}
