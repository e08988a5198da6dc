package dev.tunnel.server.proxy.tcp;

import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.SessionLink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * Where a tcp listener's accepted connections go: one proxy's link, or a load-balancing group
 * that picks a member first. Called on the listener's loop.
 */
interface ConnectionSink {

    /** {@code child}: just accepted, not yet registered. */
    void accept(Channel child);

    /**
     * {@code publicConn}: registered with {@code AUTO_READ} off, after the PROXY header gate let it
     * through (a trusted balancer's header read, or a direct visitor's first bytes checked);
     * {@code firstBytes} (may be null, owned by the callee) are the rest of that read.
     */
    void acceptAfterHeader(Channel publicConn, ByteBuf firstBytes);

    /** The sink of one proxy: its own link. */
    static ConnectionSink of(ProxyRef proxy, SessionLink link) {
        return new ConnectionSink() {
            @Override
            public void accept(Channel child) {
                link.accept(child, proxy);
            }

            @Override
            public void acceptAfterHeader(Channel publicConn, ByteBuf firstBytes) {
                link.acceptAfterHeader(publicConn, firstBytes, proxy);
            }
        };
    }
}
