/** {@code type = "udp"} on the server: a public UDP port per proxy, each peer's datagrams framed over a stream of its own. */
package dev.tunnel.server.proxy.udp;
