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
 * proxy's session link, which opens its streams or work connections. Threading as
 * {@link VhostTarget} states.
 */
public record SessionTarget(SessionLink link, ProxyRef ref) implements VhostTarget {
    @Override
    public String name() {
        return ref.name();
    }

    @Override
    public EventLoop eventLoop() {
        return link.eventLoop();
    }

    @Override
    public void open(Channel publicChannel, Consumer<AppConnection> opened) {
        link.open(publicChannel, ref, opened);
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
