package dev.tunnel.server;

import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.runtime.BurstLog;
import dev.tunnel.server.plugin.PluginException;
import dev.tunnel.server.plugin.PluginOp;
import dev.tunnel.server.plugin.PluginRequests;
import dev.tunnel.server.plugin.ServerPlugins;
import dev.tunnel.server.plugin.UserInfo;
import dev.tunnel.server.inbound.VisitorAddress;
import dev.tunnel.server.proxy.AppConnection;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.SessionLink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session's {@link SessionLink} when a plugin subscribed to NewUserConn: a public connection a
 * tcp proxy's listener accepted ({@link #accept}) is carried only once the plugins let it
 * through, and closed when one rejects it or cannot be asked. Until then the socket stays
 * unregistered: nothing is read from it and it costs a file descriptor, no buffer; the plugins'
 * own queue bounds how many wait. Everything else goes straight to the link it wraps (a session
 * without such a plugin has no gate at all, so its connections wait for no call).
 *
 * <p>Threading: session loop, as the link it wraps.
 */
final class UserConnGate implements SessionLink {
    private static final Logger log = LoggerFactory.getLogger(UserConnGate.class);
    private static final BurstLog REFUSED = new BurstLog(log);

    private final SessionLink link;
    private final ServerPlugins plugins;
    private final Supplier<UserInfo> user;
    private final Function<ProxyRef, String> typeOf;

    /** @param typeOf the type of one of the session's proxies (the NewUserConn content names it) */
    UserConnGate(SessionLink link, ServerPlugins plugins, Supplier<UserInfo> user, Function<ProxyRef, String> typeOf) {
        this.link = link;
        this.plugins = plugins;
        this.user = user;
        this.typeOf = typeOf;
    }

    @Override
    public void accept(Channel child, ProxyRef proxy) {
        whenAllowed(child, proxy, () -> link.accept(child, proxy), () -> child.unsafe().closeForcibly());
    }

    @Override
    public void acceptAfterHeader(Channel publicConn, ByteBuf firstBytes, ProxyRef proxy) {
        whenAllowed(publicConn, proxy, () -> link.carry(publicConn, firstBytes, proxy), () -> {
            ReferenceCountUtil.safeRelease(firstBytes);
            publicConn.close();
        });
    }

    private void whenAllowed(Channel publicConn, ProxyRef proxy, Runnable allowed, Runnable refused) {
        String type = typeOf.apply(proxy);
        plugins.run(PluginOp.NEW_USER_CONN, PluginRequests.newUserConn(user.get(), proxy.name(),
                type == null ? "" : type, VisitorAddress.of(publicConn)), link.eventLoop()).addListener(f -> {
                    if (f.isSuccess()) {
                        allowed.run();
                        return;
                    }
                    REFUSED.warn("{} public connection from {} to proxy [{}] refused: {}", link.control(),
                            VisitorAddress.of(publicConn), proxy.name(), PluginException.of(f.cause(), PluginOp.NEW_USER_CONN)
                                    .getMessage());
                    refused.run();
                });
    }

    @Override
    public EventLoop eventLoop() {
        return link.eventLoop();
    }

    @Override
    public Channel control() {
        return link.control();
    }

    @Override
    public boolean isActive() {
        return link.isActive();
    }

    @Override
    public int openCount() {
        return link.openCount();
    }

    @Override
    public void carry(Channel publicConn, ByteBuf firstBytes, ProxyRef proxy) {
        link.carry(publicConn, firstBytes, proxy);
    }

    @Override
    public MuxStream openStream(ProxyRef proxy, String source) {
        return link.openStream(proxy, source);
    }

    @Override
    public boolean carriesStreams() {
        return link.carriesStreams();
    }

    /** A udp proxy's carrier: its peers are not public connections of their own (frp asks no NewUserConn for udp either). */
    @Override
    public void openWorkConnection(Channel owner, ProxyRef proxy, Consumer<Channel> started) {
        link.openWorkConnection(owner, proxy, started);
    }

    @Override
    public boolean admit(Channel publicConn, ProxyRef proxy) {
        return link.admit(publicConn, proxy);
    }

    @Override
    public void open(Channel publicConn, ProxyRef proxy, Consumer<AppConnection> opened) {
        link.open(publicConn, proxy, opened);
    }
}
