package dev.tunnel.server.vhost;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.relay.RelayCounter;
import dev.tunnel.server.proxy.AppConnection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * Turns a vhost connection into a raw byte pipe to the stream it was using, once the app
 * answered {@code 101 Switching Protocols} (WebSocket and other upgrades): the request decoder
 * and the vhost handler leave the pipeline, a relay to the app's connection takes their place
 * ({@link AppConnection#relay}: a stream relay, or a pipe to the work connection), and the bytes
 * the visitor sent behind its upgrade request (still in the decoder, or read and waiting) go to
 * the app first.
 *
 * <p>Threading: the connection's event loop, which is the app connection's.
 */
final class ProtocolSwitch {
    private ProtocolSwitch() {
    }

    /**
     * @param vhost   the vhost handler's context (the handler is replaced)
     * @param up      the connection to the app that answered 101, let go of by the vhost handler
     *                ({@link Upstreams#forget}); everything it delivered so far was passed on
     * @param waiting what the vhost handler read and had not handled yet; drained here
     */
    static void toRelay(ChannelHandlerContext vhost, Upstream up, Queue<Object> waiting) {
        up.release();
        vhost.flush(); // the response written so far (the 101) goes out now, not at a later flush
        AppConnection app = up.conn;
        RelayCounter traffic = up.target().traffic();
        ChannelPipeline pipeline = vhost.pipeline();
        // bytes the decoder held arrive at the vhost handler as ByteBufs, behind those waiting
        pipeline.remove(TunnelPipeline.HTTP_CODEC);
        ArrayDeque<Object> early = new ArrayDeque<>(waiting);
        waiting.clear();
        app.relay(vhost, traffic);
        for (Object m : early) {
            if (m instanceof ByteBuf) {
                pipeline.fireChannelRead(m);
            } else {
                ReferenceCountUtil.release(m); // decoded parts of a request sent behind the upgrade
            }
        }
        pipeline.fireChannelReadComplete();
    }
}
