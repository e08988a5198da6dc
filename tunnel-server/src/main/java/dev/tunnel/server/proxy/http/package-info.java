/** The {@code http} and {@code https} proxy types on the server: shared vhost ports routed by domain. */
package dev.tunnel.server.proxy.http;
