package dev.tunnel.server.vhost;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamRelay;
import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.AbstractSniHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a connection on the vhost HTTPS port by the server name in its TLS ClientHello,
 * without terminating TLS: the certificate and key stay with the local app. Netty's
 * {@link AbstractSniHandler} reads the ClientHello, however it is split over TCP segments or TLS
 * records (at most {@link VhostSettings#MAX_CLIENT_HELLO} bytes, within the head timeout), and
 * keeps every byte; once routed, the connection moves to the proxy's loop and a
 * {@link StreamRelay} carries those bytes and everything after them, untouched.
 *
 * <p>A ClientHello without SNI, for a name no proxy serves, or input that is not TLS is closed
 * after a log line (once per burst).
 *
 * <p>Threading: runs on the connection's loop until routed; the relay runs on the proxy's.
 */
public final class SniRouter extends AbstractSniHandler<Entry<VhostTarget>> {
    private static final Logger log = LoggerFactory.getLogger(SniRouter.class);
    private static final BurstLog UNROUTED_LOG = new BurstLog(log);

    private final VhostSettings vhost;
    private boolean refused;

    public SniRouter(VhostSettings vhost) {
        super(VhostSettings.MAX_CLIENT_HELLO, vhost.headTimeoutSeconds() * 1000L);
        this.vhost = vhost;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        super.channelActive(ctx);
        ctx.read();
    }

    @Override
    protected Future<Entry<VhostTarget>> lookup(ChannelHandlerContext ctx, String hostname) {
        Entry<VhostTarget> found = hostname == null ? null
                : vhost.httpsRoutes().find(HostNames.fromHostHeader(hostname), "", "");
        return ctx.executor().newSucceededFuture(found);
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, String hostname, Future<Entry<VhostTarget>> future) {
        Entry<VhostTarget> found = future.getNow();
        if (found == null) {
            if (refused) {
                return;
            }
            refused = true;
            vhost.counters().tlsUnrouted.incrementAndGet();
            UNROUTED_LOG.warn("{} closing TLS connection: {}", ctx.channel(), hostname == null
                    ? "its ClientHello names no server (no SNI)" : "no https proxy serves [" + hostname + "]");
            ctx.close();
            return;
        }
        Channel ch = ctx.channel();
        Holder holder = new Holder();
        ctx.pipeline().replace(this, "held", holder); // the ClientHello bytes move on into the holder
        VhostTarget target = found.target();
        ChannelMover.moveTo(ch, target.eventLoop(), () -> holder.start(ch, found));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (refused) {
            log.debug("{} after refusing: {}", ctx.channel(), cause.toString());
            ctx.close();
            return;
        }
        refused = true;
        vhost.counters().tlsUnrouted.incrementAndGet();
        UNROUTED_LOG.warn("{} closing connection on the vhost HTTPS port: {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    /** Keeps the bytes read so far until the stream is open, then gives them to the relay. */
    private static final class Holder extends ChannelInboundHandlerAdapter {
        private final ArrayDeque<ByteBuf> held = new ArrayDeque<>(2);
        private boolean inactive;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf buf) {
                held.add(buf);
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactive = true;
            release();
            ctx.fireChannelInactive();
        }

        void start(Channel ch, Entry<VhostTarget> found) {
            if (inactive || !ch.isActive()) {
                release();
                ch.close();
                return;
            }
            MuxStream stream = found.target().openStream(ch);
            if (stream == null) {
                log.debug("{} proxy [{}] could not open a stream; closing", ch, found.owner());
                release();
                ch.close();
                return;
            }
            log.debug("{} TLS for [{}] -> proxy [{}] {}", ch, found.domain(), found.owner(), stream);
            ChannelPipeline p = ch.pipeline();
            p.replace(this, TunnelPipeline.RELAY, new StreamRelay(stream));
            p.fireChannelActive(); // the relay starts as on a new connection
            ByteBuf buf;
            while ((buf = held.poll()) != null) {
                p.fireChannelRead(buf);
            }
            p.fireChannelReadComplete();
        }

        private void release() {
            ByteBuf buf;
            while ((buf = held.poll()) != null) {
                buf.release();
            }
        }
    }
}
