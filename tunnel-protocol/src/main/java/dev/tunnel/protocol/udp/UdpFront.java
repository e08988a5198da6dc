package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.relay.RelayCounter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public side of a UDP proxy (on the server) or of an sudp visitor (on the visitor's
 * client): a bound UDP socket whose peers each get an association, a stream opened by
 * {@link Opener} on the first datagram from a new address. See {@link UdpAssociation} for how
 * datagrams cross.
 *
 * <h3>Bounds</h3>
 * A datagram longer than {@code maxPacketSize} is dropped and counted (the socket reads one byte
 * more than that to notice). Datagrams the tunnel cannot take yet wait at the entrance, within
 * {@link UdpLimits#ASSOCIATION_QUEUE} per association and {@link UdpLimits#PROXY_QUEUE} for all
 * of them ({@link UdpQueueBudget}), the oldest dropped when full. Associations are bounded by {@code maxAssociations}: a new address
 * beyond it evicts the one idle the longest, and an association idle for {@code idleNanos}
 * ends, its stream reset.
 *
 * <h3>Batching</h3>
 * The datagrams of one read (up to {@link UdpLimits#DATAGRAMS_PER_READ} per {@code recvmmsg})
 * are framed per association and written onto its stream when the read completes, each
 * association's as one contiguous buffer ({@link DatagramBatch}): the mux then sends a burst as
 * a few DATA frames and TLS records, and the far side handles it in a few reads, instead of
 * paying per datagram on both ends.
 *
 * <p>Threading: the socket must be registered on the event loop of the session its streams
 * belong to; everything here runs there.
 */
public final class UdpFront extends SimpleChannelInboundHandler<DatagramPacket> {
    private static final Logger log = LoggerFactory.getLogger(UdpFront.class);

    /** Opens the stream for a new peer, or returns null when none can open (no session, limits). */
    @FunctionalInterface
    public interface Opener {
        MuxStream open(InetSocketAddress peer);
    }

    /** Bytes put before the first datagram of each new association (a PROXY protocol header). */
    @FunctionalInterface
    public interface Prefix {
        ByteBuf first(InetSocketAddress peer, java.net.SocketAddress local);
    }

    private final String name;
    private final Opener opener;
    private Prefix prefix;
    private final int maxPacketSize;
    private final long idleNanos;
    private final AssociationTable<InetSocketAddress, UdpAssociation> associations;
    private final UdpDrops drops;
    private final UdpQueueBudget budget = UdpQueueBudget.perProxy();
    private RelayCounter counter = RelayCounter.NONE;
    private long lastRefusalLogNanos = Long.MIN_VALUE;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> sweeper;
    private long evicted;
    /** Associations with datagrams framed during the current read. */
    private final ArrayList<UdpAssociation> batched = new ArrayList<>();

    /**
     * @param name            how log lines name it, e.g. {@code proxy [dns]}
     * @param maxPacketSize   {@code udpPacketSize}: longer datagrams are dropped
     * @param maxAssociations peers with an association at once
     * @param idleNanos       an association with no datagram either way for this long ends
     */
    public UdpFront(String name, Opener opener, int maxPacketSize, int maxAssociations, long idleNanos) {
        super(false);
        this.name = name;
        this.opener = opener;
        this.maxPacketSize = maxPacketSize;
        this.idleNanos = idleNanos;
        this.associations = new AssociationTable<>(maxAssociations, idleNanos);
        this.drops = new UdpDrops(log, name);
    }

    public UdpDrops drops() {
        return drops;
    }

    /** The entrance-queue budget its associations share. */
    public UdpQueueBudget budget() {
        return budget;
    }

    /**
     * Counts the payload bytes of the datagrams taken from peers ({@link RelayCounter#read}) and
     * sent back to them ({@link RelayCounter#written}); set before the socket is registered.
     */
    public UdpFront counting(RelayCounter counter) {
        this.counter = counter;
        return this;
    }

    /**
     * Puts {@code prefix}'s bytes before the first datagram of each new association, in the same
     * datagram (frp's udp {@code proxyProtocolVersion}); set before the socket is registered.
     */
    public UdpFront prefixingFirstDatagrams(Prefix prefix) {
        this.prefix = prefix;
        return this;
    }

    /** Associations evicted to make room for new peers. */
    public long evicted() {
        return evicted;
    }

    public int associationCount() {
        return associations.size();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(100), idleNanos / 4);
        sweeper = ctx.executor().scheduleAtFixedRate(this::sweep, period, period, TimeUnit.NANOSECONDS);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
        InetSocketAddress peer = packet.sender();
        ByteBuf payload = packet.content();
        if (payload.readableBytes() > maxPacketSize) {
            payload.release();
            drops.drop(UdpDrops.Reason.OVERSIZE, peer);
            return;
        }
        counter.read(payload.readableBytes());
        long now = System.nanoTime();
        UdpAssociation association = associations.touch(peer, now);
        if (association == null) {
            MuxStream stream = opener.open(peer);
            if (stream == null) {
                payload.release();
                drops.drop(UdpDrops.Reason.NO_ASSOCIATION, peer);
                return;
            }
            association = new UdpAssociation(this, ctx.channel(), peer, stream, maxPacketSize, drops, budget, counter);
            UdpAssociation old = associations.add(peer, association, now);
            if (old != null) {
                evicted++;
                log.debug("{} {} association of {} evicted for {} ({} associations at most)", ctx.channel(), name,
                        old.peer(), peer, associations.maxEntries());
                old.end();
            }
            if (prefix != null) {
                payload = io.netty.buffer.Unpooled.wrappedBuffer(prefix.first(peer, ctx.channel().localAddress()), payload);
            }
        }
        if (association.send(payload)) {
            batched.add(association);
        }
    }

    /**
     * The read is over: each association's datagrams of this read go onto its stream as one
     * write, so a burst becomes a few DATA frames rather than one per datagram.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushBatches();
        ctx.fireChannelReadComplete();
    }

    private void flushBatches() {
        for (int i = 0; i < batched.size(); i++) {
            batched.get(i).flushBatch();
        }
        batched.clear();
    }

    /** A datagram went back to {@code peer}: its association is active. */
    void touch(InetSocketAddress peer) {
        associations.touch(peer, System.nanoTime());
    }

    /** The association's stream ended from the far side ({@code code}: why, a {@link ResetCode}). */
    void ended(UdpAssociation association, int code) {
        associations.remove(association.peer(), association);
        if (ResetCode.isVisitorRefusal(code)) {
            long now = System.nanoTime();
            if (lastRefusalLogNanos == Long.MIN_VALUE || now - lastRefusalLogNanos >= TimeUnit.SECONDS.toNanos(10)) {
                lastRefusalLogNanos = now; // once per 10 s: every new peer of a refused visitor is refused again
                log.warn("{} {} association of {} refused by the server: {}", ctx.channel(), name, association.peer(),
                        ResetCode.visitorRefusal(code));
            }
        }
    }

    private void sweep() {
        drops.logPending();
        for (UdpAssociation idle : associations.expire(System.nanoTime())) {
            idle.end();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closeAll();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        closeAll();
    }

    private void closeAll() {
        flushBatches(); // an ended association releases its batch
        if (sweeper != null) {
            sweeper.cancel(false);
        }
        for (UdpAssociation association : associations.clear()) {
            association.end();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // an ICMP error or a failed send on a UDP socket concerns one datagram, not the proxy
        log.debug("{} {}: {}", ctx.channel(), name, cause.toString());
    }
}
