package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;

/**
 * One peer address of a {@link UdpFront}, and the stream that carries its datagrams: what the
 * peer sends is framed onto the stream, what the stream brings back goes out of the front's
 * socket to the peer.
 *
 * <h3>Dropping instead of queueing</h3>
 * A datagram goes onto the stream while fewer than {@link UdpLimits#STREAM_QUEUE} bytes wait there
 * (for credit or for the tunnel connection), otherwise it is dropped and counted, so a burst
 * rides out a short stall but UDP never queues without bound; the session's scheduler serves the
 * stream in turn with the others, so it never holds back the session's TCP streams. The stream
 * holds a receive window of at least {@link UdpLimits#STREAM_WINDOW} (as the budget allows). A
 * datagram from the stream is dropped when the socket's outbound queue is full; its credit is
 * returned either way, once the write is done or dropped.
 *
 * <p>Threading: the front's socket and the stream's session share one event loop.
 */
final class UdpAssociation implements StreamHandler {
    /** Components a batch holds before it consolidates: one read's datagrams at most. */
    private static final int BATCH_COMPONENTS = 2 * UdpLimits.DATAGRAMS_PER_READ + 1;
    private final UdpFront front;
    private final Channel socket;
    private final InetSocketAddress peer;
    private final MuxStream stream;
    private final DatagramDecoder decoder;
    private final UdpDrops drops;
    private boolean ended;
    /** Datagrams framed during the current read of the front's socket, written when it completes. */
    private CompositeByteBuf batch;
    private int batchBytes;

    UdpAssociation(UdpFront front, Channel socket, InetSocketAddress peer, MuxStream stream, int maxPacketSize,
                   UdpDrops drops) {
        this.front = front;
        this.socket = socket;
        this.peer = peer;
        this.stream = stream;
        this.decoder = new DatagramDecoder(maxPacketSize);
        this.drops = drops;
        stream.handler(this);
        stream.holdReceiveWindow(UdpLimits.STREAM_WINDOW);
    }

    InetSocketAddress peer() {
        return peer;
    }

    /**
     * Frames {@code payload} (owned) into this read's batch, or drops it when the stream's queue
     * and the batch would exceed {@link UdpLimits#STREAM_QUEUE}. The front calls
     * {@link #flushBatch()} when its read is complete.
     *
     * @return true when this is the batch's first datagram (the front must flush it)
     */
    boolean send(ByteBuf payload) {
        int framed = payload.readableBytes() + DatagramFrames.HEADER_BYTES;
        if (ended || !stream.canQueue(batchBytes + framed, UdpLimits.STREAM_QUEUE)) {
            payload.release();
            drops.drop(UdpDrops.tunnelFull(stream), peer);
            return false;
        }
        boolean first = batch == null;
        if (first) {
            batch = socket.alloc().compositeBuffer(BATCH_COMPONENTS);
        }
        batch.addComponent(true, DatagramFrames.encode(socket.alloc(), payload));
        batchBytes += framed;
        return first;
    }

    /** Writes the datagrams framed since the last call onto the stream, as one buffer. */
    void flushBatch() {
        ByteBuf out = batch;
        batch = null;
        batchBytes = 0;
        if (out != null) {
            if (ended) {
                out.release();
            } else {
                stream.write(out);
            }
        }
    }

    /** Ends the association from this side (idle, evicted, proxy closed). */
    void end() {
        if (!ended) {
            ended = true;
            releaseBatch();
            decoder.release();
            stream.reset(ResetCode.CANCEL);
        }
    }

    private void releaseBatch() {
        if (batch != null) {
            batch.release();
            batch = null;
            batchBytes = 0;
        }
    }

    @Override
    public void onData(ByteBuf data) {
        int bytes = data.readableBytes();
        ChannelFuture[] last = new ChannelFuture[1];
        long oversize = decoder.oversize();
        decoder.decode(data, datagram -> {
            if (!socket.isWritable()) {
                socket.flush(); // one tunnel read can bring more than the watermark: send what is queued first
            }
            if (!socket.isWritable()) {
                datagram.release();
                drops.drop(UdpDrops.Reason.SOCKET_FULL, peer);
                return;
            }
            front.touch(peer);
            last[0] = socket.write(new DatagramPacket(datagram, peer));
        });
        for (long n = decoder.oversize() - oversize; n > 0; n--) {
            drops.drop(UdpDrops.Reason.OVERSIZE, peer);
        }
        if (last[0] == null) {
            stream.consumed(bytes);
        } else {
            last[0].addListener(f -> stream.consumed(bytes));
            stream.flushLater(socket);
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
            releaseBatch();
            decoder.release();
            stream.reset(ResetCode.CANCEL);
            front.ended(this, code);
        }
    }

    @Override
    public void onWritable() {
        // datagrams that found the stream full were dropped; nothing waits
    }
}
