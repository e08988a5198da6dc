package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.relay.RelayCounter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;

/**
 * One peer address of a {@link UdpFront}, and the stream that carries its datagrams: what the
 * peer sends is framed onto the stream, what the stream brings back goes out of the front's
 * socket to the peer.
 *
 * <h3>Dropping the oldest at the entrance</h3>
 * A datagram goes onto the stream while fewer than {@link UdpLimits#STREAM_QUEUE} bytes wait there
 * (for credit or for the tunnel connection); otherwise it waits at the entrance, within
 * {@link UdpLimits#ASSOCIATION_QUEUE} and the proxy's {@link UdpQueueBudget}, the oldest waiting
 * dropped and counted when full, so a burst rides out a stall but UDP never queues without bound; the session's scheduler serves the
 * stream in turn with the others, so it never holds back the session's TCP streams. The stream
 * holds a receive window of at least {@link UdpLimits#STREAM_WINDOW} (as the budget allows). A
 * datagram from the stream is dropped when the socket's outbound queue is full; see
 * {@link DatagramBatch} and {@link DatagramDelivery}.
 *
 * <p>Threading: the front's socket and the stream's session share one event loop.
 */
final class UdpAssociation implements StreamHandler {
    private final UdpFront front;
    private final Channel socket;
    private final InetSocketAddress peer;
    private final MuxStream stream;
    private final DatagramBatch batch;
    private final DatagramDelivery delivery;
    private boolean ended;

    UdpAssociation(UdpFront front, Channel socket, InetSocketAddress peer, MuxStream stream, int maxPacketSize,
                   UdpDrops drops, UdpQueueBudget budget, RelayCounter counter) {
        this.front = front;
        this.socket = socket;
        this.peer = peer;
        this.stream = stream;
        this.batch = new DatagramBatch(stream, socket.alloc(), drops, budget);
        this.delivery = new DatagramDelivery(stream, maxPacketSize, drops, counter);
        stream.handler(this);
        stream.holdReceiveWindow(UdpLimits.STREAM_WINDOW);
    }

    InetSocketAddress peer() {
        return peer;
    }

    /**
     * Frames {@code payload} (owned) into this read's batch, or queues it at the entrance when the
     * stream's queue and the batch would exceed {@link UdpLimits#STREAM_QUEUE}. The front calls
     * {@link #flushBatch()} when its read is complete.
     *
     * @return true when the front must call {@link #flushBatch()} when its read is complete
     */
    boolean send(ByteBuf payload) {
        return batch.add(payload, peer); // dropped, and counted, once the stream has ended
    }

    /** Writes the datagrams framed or waiting since the last call onto the stream, as far as it takes them. */
    void flushBatch() {
        batch.flush();
    }

    /** Ends the association from this side (idle, evicted, proxy closed). */
    void end() {
        if (!ended) {
            ended = true;
            batch.release();
            delivery.release();
            stream.reset(ResetCode.CANCEL);
        }
    }

    @Override
    public void onData(ByteBuf data) {
        if (delivery.deliver(data, socket, peer) > 0) {
            front.touch(peer);
        }
    }

    @Override
    public void onFin() {
        onReset(ResetCode.CANCEL);
    }

    @Override
    public void onReset(int code) {
        if (!ended) {
            ended = true;
            batch.release();
            delivery.release();
            stream.reset(ResetCode.CANCEL);
            front.ended(this, code);
        }
    }

    @Override
    public void onWritable() {
        batch.flush(); // datagrams that found the stream full wait in the entrance queue
    }
}
