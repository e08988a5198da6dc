/** Stream multiplexing over one connection: streams, per-stream credit flow control, and the relay between a socket and a stream. */
package dev.tunnel.protocol.mux;
