package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import io.netty.buffer.ByteBuf;
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
 * A datagram goes onto the stream only while the stream is writable (credit left and the tunnel
 * connection under its watermark), otherwise it is dropped and counted, so UDP never queues
 * more than one datagram per association and never holds back the session's TCP streams. A
 * datagram from the stream is dropped when the socket's outbound queue is full; its credit is
 * returned either way, once the write is done or dropped.
 *
 * <p>Threading: the front's socket and the stream's session share one event loop.
 */
final class UdpAssociation implements StreamHandler {
    private final UdpFront front;
    private final Channel socket;
    private final InetSocketAddress peer;
    private final MuxStream stream;
    private final DatagramDecoder decoder;
    private final UdpDrops drops;
    private boolean ended;

    UdpAssociation(UdpFront front, Channel socket, InetSocketAddress peer, MuxStream stream, int maxPacketSize,
                   UdpDrops drops) {
        this.front = front;
        this.socket = socket;
        this.peer = peer;
        this.stream = stream;
        this.decoder = new DatagramDecoder(maxPacketSize);
        this.drops = drops;
        stream.handler(this);
    }

    InetSocketAddress peer() {
        return peer;
    }

    /** Frames {@code payload} (owned) onto the stream, or drops it when the stream is not writable. */
    void send(ByteBuf payload) {
        if (ended || !stream.isWritable()) {
            payload.release();
            drops.drop(UdpDrops.Reason.TUNNEL_FULL, peer);
            return;
        }
        stream.write(DatagramFrames.encode(socket.alloc(), payload));
    }

    /** Ends the association from this side (idle, evicted, proxy closed). */
    void end() {
        if (!ended) {
            ended = true;
            decoder.release();
            stream.reset(ResetCode.CANCEL);
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
