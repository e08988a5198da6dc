package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.relay.RelayCounter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;

/**
 * Sends the datagrams a stream brings out of one UDP socket: decodes each chunk of the stream
 * ({@link DatagramDecoder}), writes every datagram to the socket without a promise of its own
 * (runs of equal-sized ones as one GSO send where the kernel can: {@link DatagramRuns}), and
 * leaves one flush for the whole read of the tunnel connection ({@link MuxStream#flushLater}).
 *
 * <h3>Bounds and credit</h3>
 * A datagram is dropped (counted) when the socket's outbound queue is over its high watermark
 * even after a flush, so the socket never holds more than the watermark and a datagram. The
 * chunk's credit goes back to the stream as soon as its datagrams are queued or dropped: the
 * socket's queue is bounded by its watermark, not by the stream's window, so credit does not
 * wait for the socket and the sender is never held up by a round trip through it.
 *
 * <h3>Reference counting</h3>
 * {@link #deliver} takes ownership of the chunk; each datagram is released by the socket once
 * sent (or once copied into a run), or here when dropped. {@link #release()} frees a datagram cut across chunks.
 *
 * <p>Not thread-safe: the socket and the stream share one event loop.
 */
final class DatagramDelivery {
    private final MuxStream stream;
    private final DatagramDecoder decoder;
    private final UdpDrops drops;
    private final RelayCounter counter;
    /** Joins runs of equal-sized datagrams into GSO sends; made with the first chunk, once the socket is known. */
    private DatagramRuns runs;

    /** @param counter counts the payload bytes written to the socket */
    DatagramDelivery(MuxStream stream, int maxPacketSize, UdpDrops drops, RelayCounter counter) {
        this.stream = stream;
        this.decoder = new DatagramDecoder(maxPacketSize);
        this.drops = drops;
        this.counter = counter;
    }

    /**
     * Decodes {@code chunk} (owned) and writes its datagrams to {@code socket}: to {@code peer}
     * on an unconnected socket, or to the socket's own peer when {@code peer} is null.
     *
     * @return how many datagrams were written (not dropped)
     */
    int deliver(ByteBuf chunk, Channel socket, InetSocketAddress peer) {
        int bytes = chunk.readableBytes();
        Object dropPeer = peer != null ? peer : socket.remoteAddress();
        long oversize = decoder.oversize();
        int[] written = new int[1];
        if (runs == null) {
            runs = new DatagramRuns(drops, DatagramRuns.segmentable(socket));
        }
        decoder.decode(chunk, datagram -> {
            if (!socket.isWritable()) {
                runs.end(socket, peer);
                socket.flush(); // one tunnel read can bring more than the watermark: send what is queued first
            }
            if (!socket.isWritable()) {
                datagram.release();
                drops.drop(UdpDrops.Reason.SOCKET_FULL, dropPeer);
                return;
            }
            counter.written(datagram.readableBytes());
            runs.add(socket, datagram, peer);
            written[0]++;
        });
        runs.end(socket, peer);
        for (long n = decoder.oversize() - oversize; n > 0; n--) {
            drops.drop(UdpDrops.Reason.OVERSIZE, dropPeer);
        }
        if (written[0] > 0) {
            stream.flushLater(socket);
        }
        stream.consumed(bytes);
        return written[0];
    }

    /** Frees a datagram still being assembled; call when the stream ends. */
    void release() {
        decoder.release();
        if (runs != null) {
            runs.release();
        }
    }
}
