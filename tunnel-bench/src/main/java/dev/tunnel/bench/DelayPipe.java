package dev.tunnel.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One direction of one emulated link: the last handler of the source socket; what it reads is
 * written to {@code peer} once it is due (read time + serialization at the rate cap + delay).
 * On a shared link the pipe is one flow of a {@link SharedBottleneck}, which decides when each
 * packet has been serialized; the pipe adds the delay.
 *
 * <h3>Backpressure</h3>
 * The source runs with {@code AUTO_READ} off: {@link #resumeReading()} reads again only while
 * fewer than {@code maxQueueBytes} wait here (on a shared link: while the bottleneck admits this
 * flow) and the peer is writable. Delivery and the peer's
 * {@code channelWritabilityChanged} resume reading.
 *
 * <h3>Reference counting</h3>
 * Queued buffers are released when written, when the peer is gone, or by {@link #releaseAll()}
 * when the emulator stops.
 *
 * <h3>Cut</h3>
 * A connection that lost anything to a fault is cut for good ({@link #cutConnection()}): both
 * directions drop their queues, drop what they read and relay no EOF or close.
 *
 * <p>Threading: runs on the event loop that the source and the peer share.
 */
final class DelayPipe extends ChannelInboundHandlerAdapter {
    private static final Object EOF = new Object();
    private static final Object CLOSE = new Object();

    private record Entry(Object item, long due) {
    }

    private final LinkEmulator link;
    private final Channel peer;
    /** The shared link this direction feeds, or null when the connection has a link of its own. */
    private final SharedBottleneck bottleneck;
    private final ArrayDeque<Entry> queue = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private long queuedBytes;
    private long nextDeparture;
    private boolean timerScheduled;
    private boolean inputDone;
    private boolean resetByPeer;
    private boolean cut;

    DelayPipe(LinkEmulator link, Channel peer, SharedBottleneck bottleneck) {
        this.link = link;
        this.peer = peer;
        this.bottleneck = bottleneck;
    }

    static void reset(Channel channel) {
        if (channel.isActive()) {
            channel.config().setOption(ChannelOption.SO_LINGER, 0);
        }
        channel.close();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        // The outbound side connects last: from then on both sides read.
        if (peer.isActive()) {
            resumeReading();
            DelayPipe other = peer.pipeline().get(DelayPipe.class);
            if (other != null) {
                other.resumeReading();
            }
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf data) || dropsEverything()) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (bottleneck != null) {
            bottleneck.offer(this, data);
            return;
        }
        int bytes = data.readableBytes();
        long now = System.nanoTime();
        long departure = now;
        long rate = link.settings().rateBitsPerSecond();
        if (rate > 0) {
            departure = Math.max(now, nextDeparture) + bytes * 8L * 1_000_000_000L / rate;
            nextDeparture = departure;
        }
        queuedBytes += bytes;
        enqueue(data, departure);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        resumeReading();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ChannelInputShutdownEvent.INSTANCE) {
            inputDone = true;
            if (!dropsEverything()) {
                endOfStream(EOF);
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        inputDone = true;
        if (!dropsEverything()) {
            endOfStream(CLOSE);
        }
        ctx.fireChannelInactive();
    }

    /** EOF or close follows the bytes read before it, through the bottleneck if there is one. */
    private void endOfStream(Object marker) {
        if (bottleneck != null) {
            bottleneck.offer(this, marker);
        } else {
            enqueue(marker, Math.max(System.nanoTime(), nextDeparture));
        }
    }

    /** The shared link has serialized {@code msg} by {@code departure}: it arrives after the delay. */
    void departed(Object msg, long departure) {
        if (msg instanceof ByteBuf data) {
            queuedBytes += data.readableBytes();
        }
        enqueue(msg, departure);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // This socket is the peer of the other direction: that one may read again.
        if (ctx.channel().isWritable()) {
            DelayPipe other = peer.pipeline().get(DelayPipe.class);
            if (other != null) {
                other.resumeReading();
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        resetByPeer |= cause instanceof IOException;
        ctx.close();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        // The source is gone; what is still queued is delivered by the timer (it holds no
        // reference to the source's pipeline), or released by releaseAll().
    }

    /**
     * Whether what the source sends is lost: the connection is cut, or is cut now because the
     * link is half-open (once it lost something, it cannot resume).
     */
    private boolean dropsEverything() {
        if (!cut && link.fault() == LinkEmulator.Fault.HALF_OPEN) {
            cutConnection();
        }
        return cut;
    }

    /** Cuts both directions of this connection for good (see Cut above). */
    void cutConnection() {
        cutOneWay();
        DelayPipe other = peer.pipeline().get(DelayPipe.class);
        if (other != null) {
            other.cutOneWay();
        }
    }

    private void cutOneWay() {
        cut = true;
        releaseAll();
        if (bottleneck != null) {
            bottleneck.drop(this);
        }
        link.untrack(this);
        if (ctx != null) {
            resumeReading(); // keeps draining the source into nothing
        }
    }

    /** The fault that held delivery back has ended. */
    void faultCleared() {
        if (bottleneck != null) {
            bottleneck.resume();
        }
        scheduleHead();
        resumeReading();
    }

    void resumeReading() {
        Channel source = ctx.channel();
        if (!source.isActive() || inputDone) {
            return;
        }
        if (cut) {
            source.read();
        } else if (peer.isActive() && peer.isWritable()) {
            if (bottleneck == null ? queuedBytes < link.settings().maxQueueBytes() : bottleneck.admits(this)) {
                source.read();
            } else if (bottleneck != null) {
                bottleneck.await(this);
            }
        }
    }

    boolean inEventLoop(io.netty.util.concurrent.EventExecutor loop) {
        return ctx.executor() == loop;
    }

    void releaseAll() {
        Entry e;
        while ((e = queue.poll()) != null) {
            ReferenceCountUtil.release(e.item);
        }
        queuedBytes = 0;
    }

    private void enqueue(Object item, long departure) {
        queue.add(new Entry(item, departure + link.settings().delayNanos()));
        link.track(this);
        scheduleHead();
    }

    private void scheduleHead() {
        Entry head = queue.peek();
        if (head == null || timerScheduled || cut || link.fault() == LinkEmulator.Fault.STALL) {
            return;
        }
        timerScheduled = true;
        long wait = Math.max(0, head.due - System.nanoTime());
        ctx.executor().schedule(this::deliver, wait, TimeUnit.NANOSECONDS);
    }

    private void deliver() {
        timerScheduled = false;
        if (cut || link.fault() == LinkEmulator.Fault.STALL) {
            return;
        }
        long now = System.nanoTime();
        boolean wrote = false;
        Entry head;
        while ((head = queue.peek()) != null && head.due - now <= 0) {
            queue.poll();
            if (head.item instanceof ByteBuf data) {
                queuedBytes -= data.readableBytes();
                if (peer.isActive()) {
                    peer.write(data, peer.voidPromise());
                    wrote = true;
                } else {
                    data.release();
                }
            } else if (head.item == EOF) {
                shutdownPeerOutput();
                wrote = false;
            } else {
                closePeer();
                wrote = false;
            }
        }
        if (wrote) {
            peer.flush();
        }
        if (queue.isEmpty() && inputDone) {
            link.untrack(this);
        }
        scheduleHead();
        resumeReading();
    }

    private void shutdownPeerOutput() {
        if (!peer.isActive()) {
            return;
        }
        // shutdownOutput() fails writes still pending: let them complete first.
        peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) f -> {
            if (f.isSuccess() && peer.isActive()) {
                ((DuplexChannel) peer).shutdownOutput();
            }
        });
    }

    private void closePeer() {
        boolean rst = resetByPeer;
        peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) f -> {
            if (rst) {
                reset(peer);
            } else {
                peer.close();
            }
        });
    }
}
