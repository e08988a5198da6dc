/**
 * Relays between a socket and the tunnel: a raw byte pipe between two sockets for pool mode's
 * work connections ({@link dev.tunnel.protocol.relay.PipeRelay}), a socket and a mux stream
 * ({@link dev.tunnel.protocol.relay.StreamRelay}); read pacing and traffic counting.
 */
package dev.tunnel.protocol.relay;
