package dev.tunnel.server.proxy;

import dev.tunnel.runtime.LineBudget;
import dev.tunnel.server.inbound.VisitorAddress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One INFO line per public connection when it closes, as frps logs each user connection: the
 * proxy, the visitor's address, the bytes each way on the socket and how long it lasted.
 * {@code log.connections = false} turns the logger ({@value #LOGGER}) off, and then no handler
 * is installed. A flood is held to {@value #BURST} lines at once, {@value #BURST} per
 * {@value #REFILL_SECONDS} s, and the lines left out are counted in the next one
 * ({@link LineBudget}).
 *
 * <p>The handler sits first in the public connection's pipeline, so it counts the bytes the
 * socket read and was given to write, whatever the proxy type. Threading: events on the
 * connection's loop; {@link #proxy} may be set from the session's loop (volatile).
 */
public final class ConnectionLog extends ChannelDuplexHandler {
    /** The logger's name: {@code log.connections} turns it on and off. */
    public static final String LOGGER = "dev.tunnel.server.connections";
    /** Its name in the pipeline. */
    public static final String NAME = "connectionLog";
    static final int BURST = 100;
    static final int REFILL_SECONDS = 10;
    private static final Logger log = LoggerFactory.getLogger(LOGGER);
    private static final LineBudget BUDGET = new LineBudget(BURST, REFILL_SECONDS);

    private final long openedNanos = System.nanoTime();
    private volatile String proxy;
    private SocketAddress visitor;
    private long in;
    private long out;

    /** Whether connection lines are logged at all ({@code log.connections}). */
    public static boolean enabled() {
        return log.isInfoEnabled();
    }

    /** Installs the handler first in {@code conn}'s pipeline unless there or off. */
    public static void install(Channel conn) {
        if (enabled() && conn.pipeline().get(NAME) == null) {
            conn.pipeline().addFirst(NAME, new ConnectionLog());
        }
    }

    /** Installs the handler if needed and names the proxy {@code conn} is for (the last one, on a keep-alive connection routed to several). */
    static void carries(Channel conn, String proxyName) {
        install(conn);
        if (conn.pipeline().get(NAME) instanceof ConnectionLog handler) {
            handler.proxy = proxyName;
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        visitor = ctx.channel().remoteAddress(); // kept: a closed channel may no longer say
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (visitor == null) {
            visitor = ctx.channel().remoteAddress();
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        in += size(msg);
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        out += size(msg);
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        String name = proxy;
        if (name != null) {
            SocketAddress named = VisitorAddress.of(ctx.channel()); // a trusted balancer's visitor, else the peer
            logClosed(name, named != null ? named : visitor);
        }
        ctx.fireChannelInactive();
    }

    private void logClosed(String name, SocketAddress visitor) {
        long left = BUDGET.take();
        if (left < 0) {
            return;
        }
        if (left > 0) {
            log.info("{} connection lines suppressed (more than {} in {} s)", left, BURST, REFILL_SECONDS);
        }
        long millis = (System.nanoTime() - openedNanos) / 1_000_000;
        log.info("proxy [{}] connection from {} closed: {} bytes in, {} bytes out, {}.{} s", name, visitor, in, out,
                millis / 1000, String.format("%03d", millis % 1000));
    }

    private static long size(Object msg) {
        if (msg instanceof ByteBuf buf) {
            return buf.readableBytes();
        }
        return msg instanceof ByteBufHolder holder ? holder.content().readableBytes() : 0;
    }
}
