package dev.tunnel.server.proxy;

/**
 * The proxy a public connection belongs to, as a {@link SessionLink} needs it.
 *
 * @param id   the client's proxy id (streams and work connections name it)
 * @param name the qualified name, for log lines
 */
public record ProxyRef(int id, String name) {
}
