/** UDP through the tunnel: datagrams framed whole on a mux stream per association, bounded association tables and the relays at both ends. */
package dev.tunnel.protocol.udp;
