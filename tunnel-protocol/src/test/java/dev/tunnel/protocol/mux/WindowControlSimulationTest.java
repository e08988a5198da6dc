package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A deterministic model of one stream through a FIFO bottleneck, its window set by
 * {@link ReceiveWindow} and {@link WindowControl}: a sender with endless data sends whatever its
 * credit allows, the bytes queue at a bottleneck of rate R and cross a one-way delay D, the
 * receiver's consumer takes them at once and credit goes back across D. The receiver pings
 * every 50 ms; a pong waits in the same FIFO as the data, as it does behind a real download. After
 * convergence the stream must get the link's rate with a standing queue of at most what its law
 * allows ((GAIN - 1) x the bandwidth-delay product, {@link WindowControl#GAIN}), and never fill the
 * bottleneck's queue. The queue is given in KiB; the bottleneck never drops (the window alone
 * bounds the queue).
 */
@Timeout(30)
class WindowControlSimulationTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final int SEGMENT = 16 * 1024;
    private static final int PONG_BYTES = 20;
    private static final long PING_EVERY = 50 * MS;

    @ParameterizedTest(name = "{0} Mbit/s, {1} ms RTT, {2} KiB of queue")
    @CsvSource({"50, 80, 512", "100, 20, 1024", "10, 200, 256", "200, 40, 2048"})
    void aStreamGetsTheLinkWithABoundedStandingQueue(int mbits, int rttMillis, int queueKib) {
        Link link = new Link(mbits * 1_000_000L / 8, rttMillis * MS / 2);
        Result r = link.run(30 * SECOND, 15 * SECOND);
        long queueBytes = queueKib * 1024L;
        assertThat(r.throughput).as("throughput over the link's rate").isGreaterThanOrEqualTo(0.95);
        double bdp = (double) link.bytesPerSecond * rttMillis / 1000;
        assertThat(r.meanQueueBytes).as("standing queue, bytes, against (GAIN - 1) x BDP")
                .isLessThanOrEqualTo((WindowGain.START - 1) * bdp * 1.1);
        assertThat(r.maxQueueBytes).as("largest queue after convergence, bytes (of %d)", queueBytes)
                .isLessThan(queueBytes);
    }

    record Result(double throughput, double meanQueueBytes, long maxQueueBytes) {
    }

    /** The bottleneck, both ends and the clock. */
    private static final class Link {
        private final long bytesPerSecond;
        private final long oneWay;
        private final PriorityQueue<Event> events = new PriorityQueue<>();
        private final ReceiveWindow window;
        private final PathDelay delay = new PathDelay();
        private long seq;
        private long credit;
        /** When the bottleneck has sent all it holds. */
        private long busyUntil;

        Link(long bytesPerSecond, long oneWay) {
            this.bytesPerSecond = bytesPerSecond;
            this.oneWay = oneWay;
            this.window = new ReceiveWindow(MuxSettings.GUARANTEED_WINDOW, 16 << 20, 0);
            this.credit = MuxSettings.GUARANTEED_WINDOW + window.grow(MuxSettings.DEFAULT_INITIAL_WINDOW
                    - MuxSettings.GUARANTEED_WINDOW, ReceiveWindow.UNLIMITED);
        }

        Result run(long duration, long measureFrom) {
            long delivered = 0;
            double queueSum = 0;
            long queueSamples = 0;
            long maxQueue = 0;
            // the transfer starts a second into a session whose other streams' traffic had it ping the idle path
            at(SECOND, Kind.SEND, credit);
            credit = 0;
            at(0, Kind.PING, 0);
            at(measureFrom, Kind.SAMPLE, 0);
            while (!events.isEmpty()) {
                Event e = events.poll();
                long now = e.time;
                if (now > duration) {
                    break;
                }
                switch (e.kind) {
                    case SEND -> {
                        credit += e.value;
                        while (credit > 0) {
                            int n = (int) Math.min(SEGMENT, credit);
                            credit -= n;
                            at(enqueue(now, n) + oneWay, Kind.DATA, n);
                        }
                    }
                    case DATA -> {
                        int n = (int) e.value;
                        assertThat(window.onReceived(n)).as("the sender kept to its credit").isTrue();
                        if (now >= measureFrom) {
                            delivered += n;
                        }
                        int more = window.onConsumed(n, now, delay, ReceiveWindow.UNLIMITED);
                        if (more > 0) {
                            at(now + oneWay, Kind.SEND, more);
                        }
                    }
                    case PING -> {
                        at(now + oneWay, Kind.PING_AT_SENDER, now); // across the idle direction
                        at(now + PING_EVERY, Kind.PING, 0);
                    }
                    case PING_AT_SENDER -> at(enqueue(now, PONG_BYTES) + oneWay, Kind.PONG, e.value);
                    case PONG -> delay.onSample(now - e.value, now);
                    case SAMPLE -> {
                        long queue = queueBytes(now);
                        queueSum += queue;
                        queueSamples++;
                        maxQueue = Math.max(maxQueue, queue);
                        at(now + MS, Kind.SAMPLE, 0);
                    }
                }
            }
            double seconds = (double) (duration - measureFrom) / SECOND;
            return new Result(delivered / seconds / bytesPerSecond, queueSum / queueSamples, maxQueue);
        }

        /** Bytes entering the bottleneck now (behind what it holds): returns when they have left it. */
        private long enqueue(long now, int bytes) {
            busyUntil = Math.max(now, busyUntil) + bytes * SECOND / bytesPerSecond;
            return busyUntil;
        }

        /** Bytes waiting in the bottleneck at {@code now}. */
        private long queueBytes(long now) {
            return Math.max(0, busyUntil - now) * bytesPerSecond / SECOND;
        }

        private void at(long time, Kind kind, long value) {
            events.add(new Event(time, seq++, kind, value));
        }
    }

    private enum Kind { SEND, DATA, PING, PING_AT_SENDER, PONG, SAMPLE }

    private record Event(long time, long seq, Kind kind, long value) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            return time != o.time ? Long.compare(time, o.time) : Long.compare(seq, o.seq);
        }
    }
}
