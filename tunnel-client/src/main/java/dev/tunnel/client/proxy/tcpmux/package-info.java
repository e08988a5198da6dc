/** The client side of {@code type = "tcpmux"}: TCP proxies reached through the server's HTTP CONNECT port. */
package dev.tunnel.client.proxy.tcpmux;
