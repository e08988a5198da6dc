/** Choice of native (epoll) or NIO transport, and the event-loop groups built on it. */
package dev.tunnel.protocol.transport;
