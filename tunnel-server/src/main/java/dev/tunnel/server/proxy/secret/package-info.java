/** {@code type = "stcp"} and {@code "sudp"} on the server: secret proxies without a public port, found by name for visitors, whose streams are spliced to a stream of the provider. */
package dev.tunnel.server.proxy.secret;
