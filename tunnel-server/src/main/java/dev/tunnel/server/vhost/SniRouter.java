package dev.tunnel.server.vhost;

import dev.tunnel.runtime.BurstLog;
import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.AbstractSniHandler;
import io.netty.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a connection on the vhost HTTPS port by the server name in its TLS ClientHello,
 * without terminating TLS: the certificate and key stay with the local app. Netty's
 * {@link AbstractSniHandler} reads the ClientHello, however it is split over TCP segments or TLS
 * records (at most {@link VhostSettings#MAX_CLIENT_HELLO} bytes, within the head timeout), and
 * keeps every byte; once routed, {@link VhostTarget#carry} takes the connection with those bytes
 * (to a stream in mux mode, a work connection in pool mode) and relays them and everything
 * after them untouched.
 *
 * <p>A ClientHello without SNI, for a name no proxy serves, or input that is not TLS is closed
 * after a log line (once per burst).
 *
 * <p>Threading: runs on the connection's loop until routed. No read is pending when the
 * connection is handed on (the ClientHello reader asks for more only while it lacks bytes), so
 * nothing arrives between the hand-off and the relay.
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
        HeldBytes holder = new HeldBytes(ch, null);
        // The bytes read so far (ClientHello and all) reach the holder once this handler has
        // left, right after this call returns; the task below runs after that.
        ctx.pipeline().replace(this, "sniBytes", holder);
        ch.eventLoop().execute(() -> {
            if (holder.carryTo(found.target())) {
                log.debug("{} TLS for [{}] -> proxy [{}]", ch, found.domain(), found.owner());
            }
        });
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
}
