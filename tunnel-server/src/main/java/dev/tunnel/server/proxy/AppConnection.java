package dev.tunnel.server.proxy;

import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.relay.RelayCounter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;

/**
 * A connection to a proxy's local app that its user drives itself rather than relaying a socket
 * to it (the vhost sends requests on it one by one, and reads the responses): a stream of the
 * session's mux connection, or a work connection of its own in pool mode. Events reach the
 * {@link StreamHandler}; {@code onData}'s bytes count against flow control until
 * {@link #consumed} (a stream's credit, a work connection's reads).
 *
 * <p>Threading: every method, and every event, on {@link #eventLoop()}; the public connection
 * that uses it is registered there.
 */
public interface AppConnection {

    /** Where this connection is used. */
    EventLoop eventLoop();

    /** Sets who receives the events; before the first one can arrive (set once, at once). */
    void handler(StreamHandler handler);

    /** Sends {@code data} (ownership passes). */
    void write(ByteBuf data);

    /** The user took {@code bytes} of what {@code onData} delivered (wrote them on): more may come. */
    void consumed(int bytes);

    /** A write now would go out at once; when false, {@code onWritable} follows. */
    boolean isWritable();

    /** Neither end closed or reset it: it can carry another request. */
    boolean isOpen();

    /** FIN to the app once everything written went out. */
    void shutdownOutput();

    /** Aborts it at both ends (the app sees a reset). */
    void reset();

    /** Flushes {@code socket} once the events of the current read were handled. */
    void flushLater(Channel socket);

    /**
     * Hands the public connection over to a raw relay to this connection, both ways (after a
     * {@code 101 Switching Protocols}): replaces the handler of {@code replaced} with the relay.
     * Bytes fired through the public pipeline afterwards go to the app.
     */
    void relay(ChannelHandlerContext replaced, RelayCounter traffic);
}
