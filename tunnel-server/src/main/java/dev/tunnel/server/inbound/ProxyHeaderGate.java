package dev.tunnel.server.inbound;

import dev.tunnel.runtime.BurstLog;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First handler of a public connection on a port that takes the PROXY protocol
 * ({@code proxyProtocolTrustedIPs} set). From a trusted balancer the connection must start with a
 * v1 or v2 header (read by Netty's {@link HAProxyMessageDecoder}, placed ahead of this gate): the
 * rest of the pipeline sees {@code channelActive} only once it has come, with the visitor it names
 * recorded ({@link VisitorAddress}), and the bytes behind it next. A connection from a trusted
 * address with no header, a malformed one, or none within {@value #HEADER_TIMEOUT_MS} ms is closed
 * before anything else saw it. From any other address the gate hands over to a
 * {@link ForgedHeaderCheck}, which refuses a connection that sends a header itself, and likewise
 * lets the rest of the pipeline see it only once its first bytes are known to be no header.
 *
 * <p>A {@code LOCAL} header (a balancer's own health check) or an {@code UNKNOWN} one keeps the
 * socket's peer as the visitor.
 *
 * <p>Threading: the channel's event loop. {@code AUTO_READ} may be off: the gate reads until the header is in.
 */
public final class ProxyHeaderGate extends ChannelInboundHandlerAdapter {
    /** Handler name in a public connection's pipeline. */
    public static final String NAME = "proxyHeaderGate";
    static final long HEADER_TIMEOUT_MS = 5_000;
    private static final String DECODER = "proxyHeaderDecoder";
    private static final Logger log = LoggerFactory.getLogger(ProxyHeaderGate.class);
    private static final BurstLog REFUSED = new BurstLog(log);

    private final TrustedSources trust;
    private ScheduledFuture<?> timeout;
    private boolean passed;

    private ProxyHeaderGate(TrustedSources trust) {
        this.trust = trust;
    }

    /** Puts the gate first in {@code pipeline} when {@code trust} names any balancer; otherwise leaves it as is. */
    public static void install(ChannelPipeline pipeline, TrustedSources trust) {
        if (trust.enabled()) {
            pipeline.addFirst(NAME, new ProxyHeaderGate(trust));
        }
    }

    /** Installed before the connection is registered: it decides when the connection goes active. */
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (!trust.trusts(ctx.channel().remoteAddress())) {
            ctx.pipeline().addAfter(NAME, ForgedHeaderCheck.NAME, new ForgedHeaderCheck());
            ctx.fireChannelActive();
            ctx.pipeline().remove(this);
            return;
        }
        ctx.pipeline().addBefore(NAME, DECODER, new HAProxyMessageDecoder());
        timeout = ctx.executor().schedule(() -> refuse(ctx, "no PROXY header within " + HEADER_TIMEOUT_MS + " ms"),
                HEADER_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        ctx.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HAProxyMessage header)) { // not reached: the decoder passes only its message
            ReferenceCountUtil.release(msg);
            refuse(ctx, "bytes before the PROXY header");
            return;
        }
        try {
            InetSocketAddress visitor = visitor(header);
            if (visitor != null) {
                VisitorAddress.set(ctx.channel(), visitor);
            }
            log.debug("{} PROXY {} header: visitor {}", ctx.channel(), header.protocolVersion(),
                    VisitorAddress.of(ctx.channel()));
        } finally {
            header.release();
        }
        passed = true;
        timeout.cancel(false);
        ctx.fireChannelActive();
        ctx.pipeline().remove(this); // the decoder leaves next, handing on the bytes behind the header
    }

    /** The visitor a PROXY command names; null for LOCAL and UNKNOWN (the socket's peer stays). */
    static InetSocketAddress visitor(HAProxyMessage header) {
        if (header.command() != HAProxyCommand.PROXY || header.sourceAddress() == null) {
            return null;
        }
        InetAddress address = NetUtil.createInetAddressFromIpAddressString(header.sourceAddress());
        return address == null ? null : new InetSocketAddress(address, header.sourcePort());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!passed && ctx.channel().isActive()) {
            ctx.read(); // the header is not all in yet
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        refuse(ctx, "malformed PROXY header: " + cause.getMessage());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timeout != null) {
            timeout.cancel(false);
        }
        // Nothing behind the gate saw the connection open: it sees no close either.
    }

    private void refuse(ChannelHandlerContext ctx, String why) {
        if (!passed && ctx.channel().isOpen()) {
            REFUSED.warn("{} refused: {} is a trusted balancer (proxyProtocolTrustedIPs) and sent {}", ctx.channel(),
                    ctx.channel().remoteAddress(), why);
            ctx.close();
        }
    }
}
