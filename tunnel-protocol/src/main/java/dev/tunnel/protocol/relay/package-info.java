/** A raw byte pipe between two sockets, for pool mode's one-connection-per-stream work connections. */
package dev.tunnel.protocol.relay;
