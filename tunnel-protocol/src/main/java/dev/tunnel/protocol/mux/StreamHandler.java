package dev.tunnel.protocol.mux;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import java.util.function.Consumer;

/**
 * Receives what happens on a {@link MuxStream}. Called on the event loop of the lane owner that
 * holds the stream (see {@link MuxStream}, "Threading").
 */
public interface StreamHandler {

    /**
     * Bytes from the peer. The handler owns {@code data} and must release it, and must call
     * {@link MuxStream#consumed(int)} once the bytes have really been taken (written to the
     * socket), which is what returns credit to the sender.
     */
    void onData(ByteBuf data);

    /** The peer half-closed: no more data will arrive. */
    void onFin();

    /** The stream was aborted (by the peer, a protocol error, or the session ending). */
    void onReset(int code);

    /** The stream can take writes again after {@link MuxStream#isWritable()} returned false. */
    void onWritable();

    /**
     * Whether this handler can follow its stream to another event loop now ({@link #moveTo}): a
     * stream whose handler cannot stays on the session's express lane. By default it cannot.
     */
    default boolean canMove() {
        return false;
    }

    /**
     * Moves what this handler runs on (its socket) to {@code loop}, then calls {@code landed}
     * there with null, or, if the move failed (the socket is closed then), with the cause on
     * whichever loop saw it; the handler goes on (reads again) after {@code landed} returns.
     * Called on the current loop, only after {@link #canMove} said true. Until {@code landed},
     * the stream keeps what the handler does and acts on it when it lands.
     */
    default void moveTo(EventLoop loop, Consumer<Throwable> landed) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot move");
    }
}
