/** The {@code tcp} proxy type on the server: a public port of its own per proxy. */
package dev.tunnel.server.proxy.tcp;
