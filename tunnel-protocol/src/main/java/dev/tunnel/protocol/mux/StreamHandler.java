package dev.tunnel.protocol.mux;

import io.netty.buffer.ByteBuf;

/**
 * Receives what happens on a {@link MuxStream}. Called on the session's event loop (see
 * {@link MuxStream}, "Threading").
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

}
