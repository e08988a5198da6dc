/** Choice of I/O transport (io_uring, epoll or NIO), the event-loop groups built on it, and socket-level fixes. */
package dev.tunnel.protocol.transport;
