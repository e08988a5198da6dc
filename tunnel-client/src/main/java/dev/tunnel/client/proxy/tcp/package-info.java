/** The {@code tcp} proxy type on the client: each stream becomes a TCP connection to the local app. */
package dev.tunnel.client.proxy.tcp;
