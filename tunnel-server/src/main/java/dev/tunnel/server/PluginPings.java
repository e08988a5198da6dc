package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.server.plugin.PluginException;
import dev.tunnel.server.plugin.PluginOp;
import dev.tunnel.server.plugin.PluginRequests;
import dev.tunnel.server.plugin.ServerPlugins;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the plugins subscribed to Ping that the client's heartbeat arrived, and closes the session
 * when one rejects it or cannot be asked (frp answers such a ping with an error, and its client
 * then drops the connection). The client pings at its heartbeat interval and, while data flows,
 * more often to measure the round trip; plugins hear of at most one ping per
 * {@link #INTERVAL_NANOS} per session, and of none while a call is out. Every ping goes on to
 * {@code mux}, which answers it: a plugin never delays a pong. A changed content has nothing to
 * apply to (frp checks the token in it; a tunnel session was proven at login).
 *
 * <p>Threading: the session's event loop.
 */
final class PluginPings extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(PluginPings.class);
    /** frp's default client heartbeat interval. */
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final ServerPlugins plugins;
    private ClientSession session;
    private long lastCall;
    private boolean called;
    private boolean calling;

    PluginPings(ServerPlugins plugins) {
        this.plugins = plugins;
    }

    /** The session whose pings these are; set right after login, before any ping is read. */
    void session(ClientSession session) {
        this.session = session;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ControlFrame frame && frame.message() instanceof Ping && session != null && !calling) {
            long now = System.nanoTime();
            if (!called || now - lastCall >= INTERVAL_NANOS) {
                called = true;
                lastCall = now;
                calling = true;
                plugins.run(PluginOp.PING, PluginRequests.ping(session.userInfo(),
                        TimeUnit.MILLISECONDS.toSeconds(System.currentTimeMillis())), ctx.executor()).addListener(f -> {
                            calling = false;
                            if (!f.isSuccess() && ctx.channel().isActive()) {
                                PluginException e = PluginException.of(f.cause(), PluginOp.PING);
                                log.warn("{} closing {}: {}", ctx.channel(), session.label(), e.getMessage());
                                ctx.close();
                            }
                        });
            }
        }
        ctx.fireChannelRead(msg);
    }
}
