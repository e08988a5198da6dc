/**
 * How the server takes public traffic for a proxy type: the {@link dev.tunnel.server.proxy.ServerProxyType}
 * interface a type implements, the {@link dev.tunnel.server.proxy.ServerProxyTypes} registry, and what a client
 * session offers a type (its {@link dev.tunnel.server.proxy.SessionLink}, its public ports). Each type lives in a
 * package of its own below this one; docs/architecture.md shows how to add one.
 */
package dev.tunnel.server.proxy;
