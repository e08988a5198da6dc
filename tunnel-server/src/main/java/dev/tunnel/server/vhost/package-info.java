/** Virtual hosts on shared ports: HTTP requests routed by Host and path, TLS connections by SNI. */
package dev.tunnel.server.vhost;
