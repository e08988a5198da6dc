package dev.tunnel.protocol.udp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.Errors;
import io.netty.channel.unix.SegmentedDatagramPacket;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the datagrams of one chunk of a stream to one destination, joining each run of
 * equal-sized datagrams into one GSO send ({@code UDP_SEGMENT}, Netty's
 * {@link SegmentedDatagramPacket}): the kernel takes the run through its send path once (one
 * route lookup, one pass through IP and the device) and cuts it into datagrams at the end, the
 * receiver still sees one datagram each. Runs are what a burst of one protocol brings: the
 * same DNS query or answer, a bulk sender's full-sized datagrams. A run ends at a datagram of
 * another size (a shorter one is its last segment), at {@link #MAX_SEGMENTS} or at
 * {@link #MAX_RUN_BYTES}.
 *
 * <h3>Fallback</h3>
 * Without epoll, where the kernel or Netty's native library lacks {@code UDP_SEGMENT}, or with
 * {@code -Dtunnel.udpGso=false}, each datagram is written as it is ({@link #segmenting} false). A GSO send the kernel refuses for
 * lack of support on the route ({@code EIO}, {@code EINVAL}: a segment larger than the route's
 * MTU allows, {@code EOPNOTSUPP}) loses that run, counted as {@link UdpDrops.Reason#SOCKET_FULL},
 * and turns segmenting off for this destination's socket, said once at INFO; other send errors
 * (an ICMP port unreachable) are the socket's, as for a plain send.
 *
 * <h3>Reference counting</h3>
 * {@link #add} takes ownership of the datagram: it is written as it is when alone, or copied into
 * the run's buffer and released. {@link #end} writes what is held; {@link #release()} frees it.
 *
 * <p>Not thread-safe: one instance per association, on its socket's event loop.
 */
final class DatagramRuns {
    private static final Logger log = LoggerFactory.getLogger(DatagramRuns.class);
    /** Segments per GSO send: the kernel's {@code UDP_MAX_SEGMENTS} of before 6.9 (128 since). */
    static final int MAX_SEGMENTS = 64;
    /** Payload bytes per GSO send: under the 65,507 an IPv4 datagram may carry. */
    static final int MAX_RUN_BYTES = 63 * 1024;
    /** {@code -Dtunnel.udpGso=false} sends every datagram on its own (to compare, or to rule GSO out). */
    static final String PROPERTY = "tunnel.udpGso";
    private static final boolean NATIVE_GSO = !"false".equals(System.getProperty(PROPERTY)) && nativeGso();
    /** The sender named by a run on a socket with no IP address of its own (only in tests): unused by the send. */
    private static final InetSocketAddress ANY = new InetSocketAddress(0);

    private final UdpDrops drops;
    private boolean segmenting;
    /** The first datagram of a run, held as it is until a second of its size comes. */
    private ByteBuf first;
    /** Two or more datagrams of {@link #segment} bytes (the last may be shorter). */
    private ByteBuf run;
    private int segment;
    private int count;

    /** @param segmenting whether to join runs; {@link #segmentable} says if the socket can */
    DatagramRuns(UdpDrops drops, boolean segmenting) {
        this.drops = drops;
        this.segmenting = segmenting;
    }

    /** Whether {@code socket} can send a run as one GSO send: epoll, with {@code UDP_SEGMENT} in kernel and library. */
    static boolean segmentable(Channel socket) {
        return NATIVE_GSO && socket instanceof EpollDatagramChannel;
    }

    private static boolean nativeGso() {
        try {
            return EpollDatagramChannel.isSegmentedDatagramPacketSupported();
        } catch (Throwable unavailable) { // no native library for this platform
            return false;
        }
    }

    boolean segmenting() {
        return segmenting;
    }

    /**
     * Writes {@code datagram} (owned) to {@code socket} toward {@code peer} (null: the connected
     * socket's peer), or holds it to join a run; call {@link #end} before flushing the socket.
     */
    void add(Channel socket, ByteBuf datagram, InetSocketAddress peer) {
        int length = datagram.readableBytes();
        if (!segmenting || length == 0) {
            end(socket, peer);
            write(socket, datagram, peer);
            return;
        }
        if (run != null) {
            if (length <= segment && count < MAX_SEGMENTS && run.readableBytes() + length <= MAX_RUN_BYTES) {
                append(datagram);
                if (length < segment) {
                    end(socket, peer); // a shorter one can only be the last segment
                }
                return;
            }
            end(socket, peer);
        } else if (first != null) {
            if (first.readableBytes() == length) {
                segment = length;
                run = socket.alloc().directBuffer(Math.min(length * 8, MAX_RUN_BYTES), MAX_RUN_BYTES);
                count = 0;
                append(first);
                first = null;
                append(datagram);
                return;
            }
            end(socket, peer);
        }
        first = datagram;
    }

    private void append(ByteBuf datagram) {
        try {
            run.writeBytes(datagram);
            count++;
        } finally {
            datagram.release();
        }
    }

    /** Writes what is held: a lone datagram as it is, a run as one GSO send. */
    void end(Channel socket, InetSocketAddress peer) {
        if (first != null) {
            ByteBuf lone = first;
            first = null;
            write(socket, lone, peer);
        } else if (run != null) {
            ByteBuf segments = run;
            int n = count;
            run = null;
            // a connected socket sends to its own peer: the packet names only the sender
            SegmentedDatagramPacket packet = peer != null
                    ? new SegmentedDatagramPacket(segments, segment, peer)
                    : new SegmentedDatagramPacket(segments, segment, null,
                            socket.localAddress() instanceof InetSocketAddress local ? local : ANY);
            socket.write(packet).addListener((ChannelFutureListener) f -> sent(f, n, peer));
        }
    }

    private static void write(Channel socket, ByteBuf datagram, InetSocketAddress peer) {
        // a connected socket takes the bare buffer (epoll and io_uring still batch it into sendmmsg)
        socket.write(peer != null ? new DatagramPacket(datagram, peer) : datagram, socket.voidPromise());
    }

    private void sent(ChannelFuture f, int datagrams, InetSocketAddress peer) {
        if (f.isSuccess()) {
            return;
        }
        if (!unsupported(f.cause())) {
            // as for a single datagram: an ICMP error or a failed send concerns these datagrams, not the socket
            log.debug("{} {} datagrams to {}: {}", f.channel(), datagrams, peer, f.cause().toString());
            return;
        }
        Object dropPeer = peer != null ? peer : f.channel().remoteAddress();
        for (int i = 0; i < datagrams; i++) {
            drops.drop(UdpDrops.Reason.SOCKET_FULL, dropPeer);
        }
        if (segmenting) {
            segmenting = false;
            log.info("{} the kernel refused a GSO send of {} datagrams to {} ({}): sending one datagram at a time",
                    f.channel(), datagrams, dropPeer, f.cause().getMessage());
        }
    }

    /** The kernel refused GSO itself (not the datagrams' destination). */
    static boolean unsupported(Throwable cause) {
        if (cause instanceof UnsupportedOperationException) {
            return true;
        }
        if (cause instanceof Errors.NativeIoException e) {
            int errno = -e.expectedErr();
            return errno == 5 || errno == 22 || errno == 95; // EIO, EINVAL, EOPNOTSUPP
        }
        return false;
    }

    /** Frees what is held (the stream ended before {@link #end}). */
    void release() {
        if (first != null) {
            first.release();
            first = null;
        }
        if (run != null) {
            run.release();
            run = null;
        }
    }
}
