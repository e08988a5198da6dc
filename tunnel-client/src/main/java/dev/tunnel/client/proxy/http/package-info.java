/** The {@code http} and {@code https} proxy types on the client: keys sent to the server's vhost ports. */
package dev.tunnel.client.proxy.http;
