package dev.tunnel.server.proxy;

import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;

/**
 * The proxy a public connection belongs to, as a {@link SessionLink} needs it.
 *
 * @param id            the client's proxy id (streams and work connections name it)
 * @param name          the qualified name, for log lines
 * @param proxyProtocol {@code transport.proxyProtocolVersion}: the link sends the local app a PROXY
 *                      protocol header of this version before the connection's bytes; null = none
 */
public record ProxyRef(int id, String name, HAProxyProtocolVersion proxyProtocol) {

    /** A proxy without PROXY protocol. */
    public ProxyRef(int id, String name) {
        this(id, name, null);
    }
}
