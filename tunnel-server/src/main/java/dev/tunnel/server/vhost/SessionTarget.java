package dev.tunnel.server.vhost;

import dev.tunnel.protocol.relay.RelayCounter;
import dev.tunnel.server.proxy.AppConnection;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.SessionLink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.function.Consumer;

/**
 * A proxy routed by name ({@code http}, {@code https}, {@code tcpmux}) as the routers see it: the
 * proxy's session link, which opens its streams or work connections, and the idle ones kept for
 * its next requests. Threading as {@link VhostTarget} states.
 */
public final class SessionTarget implements VhostTarget {
    private final SessionLink link;
    private final ProxyRef ref;
    private final IdleUpstreams idle;

    /** Call after the proxy's PROXY protocol version is set: a proxy that sends the header keeps no idle connections. */
    public SessionTarget(SessionLink link, ProxyRef ref) {
        this.link = link;
        this.ref = ref;
        this.idle = new IdleUpstreams(link.eventLoop(), ref.proxyProtocol() != null ? 0 : IdleUpstreams.MAX_IDLE,
                IdleUpstreams.IDLE_TIMEOUT_SECONDS);
    }

    @Override
    public String name() {
        return ref.name();
    }

    @Override
    public EventLoop eventLoop() {
        return link.eventLoop();
    }

    @Override
    public boolean admit(Channel publicChannel) {
        return link.admit(publicChannel, ref);
    }

    @Override
    public void open(Channel publicChannel, Consumer<AppConnection> opened) {
        link.open(publicChannel, ref, opened);
    }

    @Override
    public IdleUpstreams idle() {
        return idle;
    }

    @Override
    public RelayCounter traffic() {
        return ref.traffic();
    }

    @Override
    public void carry(Channel publicConn, ByteBuf firstBytes) {
        link.carry(publicConn, firstBytes, ref);
    }
}
