package dev.tunnel.server.proxy;

import dev.tunnel.protocol.Options;

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

    /** The name as logs show it. */
    public String qualifiedName() {
        return proxy.name();
    }
}
