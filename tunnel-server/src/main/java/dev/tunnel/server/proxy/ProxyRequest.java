package dev.tunnel.server.proxy;

import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.ProtocolException;

/**
 * A client's request to start a proxy ({@code NEW_PROXY}).
 *
 * @param proxy   the proxy as its connections see it: id, qualified name ({@code user.name} for a
 *                client with a user), traffic counter; hand it to the {@link SessionLink}
 * @param name    the name in the client's config
 * @param options the type's settings, as the client's type put them (untrusted: check each)
 */
public record ProxyRequest(ProxyRef proxy, String name, String type, Options options) {

    /** The client's id for the proxy, stable for its life. */
    public int id() {
        return proxy.id();
    }

    /**
     * The {@code remotePort} option of a type with a port of its own: 0 (or absent) = the server
     * picks.
     *
     * @throws ProxyRefusedException when it is not a number in 0-65535
     */
    public int remotePort() throws ProxyRefusedException {
        int port;
        try {
            port = options.integer("remotePort", 0);
        } catch (ProtocolException e) {
            throw new ProxyRefusedException(e.getMessage());
        }
        if (port < 0 || port > 65535) {
            throw new ProxyRefusedException("remotePort: " + port + " (expected: 0-65535)");
        }
        return port;
    }

    /** The name as logs show it. */
    public String qualifiedName() {
        return proxy.name();
    }
}
