/** {@code type = "stcp"} and {@code "sudp"} on the client: secret proxies that only visitors with the key reach. */
package dev.tunnel.client.proxy.secret;
