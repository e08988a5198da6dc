/** {@code type = "udp"} on the client: a UDP socket of its own per association, connected to the local app. */
package dev.tunnel.client.proxy.udp;
