package dev.tunnel.server.proxy;

import dev.tunnel.protocol.Options;

/**
 * A client's request to start a proxy ({@code NEW_PROXY}).
 *
 * @param id            the client's id for the proxy, stable for its life; streams name it
 * @param name          the name in the client's config
 * @param qualifiedName the name as logs show it: {@code user.name} for a client with a user
 * @param options       the type's settings, as the client's type put them (untrusted: check each)
 */
public record ProxyRequest(int id, String name, String qualifiedName, String type, Options options) {
}
