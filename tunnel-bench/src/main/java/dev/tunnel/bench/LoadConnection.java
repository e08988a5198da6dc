package dev.tunnel.bench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.BitSet;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One connection of {@link LongConnLoad}: sends a message every interval and checks the echoes.
 * A message is {@code magic u32, connection id u32, sequence u64, send time u64 (nanoTime)}
 * then zero padding up to the message size.
 *
 * <p>With an interval, the first message (sequence 0) goes out as soon as TCP connects, and the
 * connection reports itself ready when its echo is back (or when it closes first): a connect that
 * the kernel completed while the target had not accepted it yet (a full accept queue, SYN-ACK
 * retransmits) is not ready. That message is counted like every other; its round trip, which
 * includes the connection set-up, is not recorded. A connection whose first echo takes over 10 s
 * is taken as ready anyway (the message is still waited for, and counted lost if it never comes).
 *
 * <p>Threading: runs on its channel's event loop, and counts into that loop's {@link LoadStats}.
 */
final class LoadConnection extends ChannelInboundHandlerAdapter {
    static final int HEADER = 24;
    private static final int MAGIC = 0x4C4F4144; // "LOAD"
    private static final long READY_TIMEOUT_SECONDS = 10;

    /** When every connection stops sending. */
    static final class Clock {
        private volatile long sendingFrom = Long.MAX_VALUE;
        private volatile long sendingUntil = Long.MAX_VALUE;
        private volatile long recordingFrom = Long.MAX_VALUE;

        void start(long from, long recordFrom, long until) {
            sendingFrom = from;
            recordingFrom = recordFrom;
            sendingUntil = until;
        }

        /** Whole seconds from the start of sending to {@code sentAt}; negative before (the first message of a connection). */
        long secondOf(long sentAt) {
            long from = sendingFrom;
            return from == Long.MAX_VALUE ? -1 : Math.floorDiv(sentAt - from, 1_000_000_000L);
        }

        /** Messages sent during the warm-up (JIT, first connections) count, but their RTT is not recorded. */
        boolean recording(long sentAt) {
            return sentAt - recordingFrom >= 0;
        }

        boolean over(long now) {
            return now - sendingUntil >= 0;
        }
    }

    private final int id;
    private final LongConnLoad.Options options;
    private final LoadStats stats;
    private final Clock clock;
    private Runnable ready;
    private final BitSet received = new BitSet();
    private long sent;
    private long highest = -1;
    private ScheduledFuture<?> timer;
    private Channel channel;

    /** @param ready runs once, on the event loop, when the connection is ready or gone */
    LoadConnection(int id, LongConnLoad.Options options, LoadStats stats, Clock clock, Runnable ready) {
        this.id = id;
        this.options = options;
        this.stats = stats;
        this.clock = clock;
        this.ready = ready;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        if (options.intervalMillis() > 0) {
            write(System.nanoTime());
            // An echo that never comes must not hold a set-up slot forever; it still counts as lost.
            ctx.executor().schedule(this::markReady, READY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } else {
            markReady();
        }
        ctx.fireChannelActive();
    }

    private void markReady() {
        if (ready != null) {
            Runnable r = ready;
            ready = null;
            r.run();
        }
    }

    /** Starts the periodic messages, first one at a random point of the first interval. */
    void startSending(Channel ch) {
        ch.eventLoop().execute(() -> {
            channel = ch;
            long interval = options.intervalMillis();
            long first = ThreadLocalRandom.current().nextLong(interval);
            timer = ch.eventLoop().scheduleAtFixedRate(this::send, first, interval, TimeUnit.MILLISECONDS);
        });
    }

    private void send() {
        long now = System.nanoTime();
        if (clock.over(now) || !channel.isActive()) {
            timer.cancel(false);
            return;
        }
        write(now);
    }

    private void write(long now) {
        ByteBuf msg = channel.alloc().buffer(options.messageSize());
        msg.writeInt(MAGIC).writeInt(id).writeLong(sent).writeLong(now);
        msg.writeZero(options.messageSize() - HEADER);
        sent++;
        stats.sent++;
        channel.writeAndFlush(msg, channel.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            ByteBuf m = (ByteBuf) msg;
            long now = System.nanoTime();
            if (m.readInt() != MAGIC || m.readInt() != id) {
                stats.corrupt++;
                return;
            }
            long seq = m.readLong();
            long sentAt = m.readLong();
            if (seq < 0 || seq >= sent || seq > Integer.MAX_VALUE) {
                stats.corrupt++;
                return;
            }
            if (received.get((int) seq)) {
                stats.duplicated++;
                return;
            }
            received.set((int) seq);
            stats.received++;
            if (seq < highest) {
                stats.outOfOrder++;
            }
            highest = Math.max(highest, seq);
            if (clock.recording(sentAt)) {
                stats.recordRtt(now - sentAt);
            }
            stats.late.record(clock.secondOf(sentAt), now - sentAt);
            if (seq == 0) {
                markReady();
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
        }
        if (!stats.closing) {
            stats.closedEarly++;
        }
        markReady();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        stats.error(cause);
        ctx.close();
    }
}
