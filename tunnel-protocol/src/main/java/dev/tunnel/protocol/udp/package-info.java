/** UDP through the tunnel: datagrams framed whole on a mux stream per association, bounded association tables, the relays at both ends, and in pool mode the carrier session of a work connection. */
package dev.tunnel.protocol.udp;
