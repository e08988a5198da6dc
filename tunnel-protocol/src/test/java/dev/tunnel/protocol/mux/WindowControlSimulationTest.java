package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A deterministic model of streams through one FIFO bottleneck, their windows set by
 * {@link ReceiveWindow}, {@link WindowControl} and the session's {@link WindowGain}: a sender with
 * endless data per stream sends whatever each stream's credit allows, the bytes queue at a
 * bottleneck of rate R and cross a one-way delay D, the receiver's consumer takes them at once and
 * credit goes back across D, after an extra delay that stands for a busy host (credit that waits
 * for the event loop). The receiver pings every {@link RttProbe#BUSY_PROBE_MILLIS}; a pong waits
 * in the same FIFO as the data, as it does behind a real download. After convergence the streams
 * together must get the link's rate with a mean queue of at most twice the gain's target plus
 * what one batch of credit adds (the target is the queue's floor; credit comes back in batches of
 * a sixteenth of a window, about RTT / 16 of the link's time at a gain up to 2), and never the
 * bottleneck's queue full. The queue is given in KiB; the bottleneck never drops (the windows alone bound it).
 */
@Timeout(60)
class WindowControlSimulationTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final int SEGMENT = 16 * 1024;
    private static final int PONG_BYTES = 20;
    private static final long PING_EVERY = RttProbe.BUSY_PROBE_MILLIS * MS;

    @ParameterizedTest(name = "{0} Mbit/s, {1} ms RTT, {2} KiB of queue")
    @CsvSource({"50, 80, 512", "100, 20, 1024", "10, 200, 256", "200, 40, 2048"})
    void aBulkStreamGetsTheLinkWithTheQueueNearTheTarget(int mbits, int rttMillis, int queueKib) {
        assertFullLinkShortQueue(new Link(mbits * 1_000_000L / 8, rttMillis * MS / 2, 1, 0), queueKib);
    }

    @ParameterizedTest(name = "{0} Mbit/s, {1} ms RTT, {2} KiB of queue")
    @CsvSource({"50, 80, 512", "100, 20, 1024"})
    void fourStreamsSharingTheQueueKeepTheLinkFullAndTheQueueShort(int mbits, int rttMillis, int queueKib) {
        assertFullLinkShortQueue(new Link(mbits * 1_000_000L / 8, rttMillis * MS / 2, 4, 0), queueKib);
    }

    /** Credit that waits 12 ms on a busy host each time: the gain grows to cover the longer loop. */
    @ParameterizedTest(name = "{0} stream(s)")
    @CsvSource({"1", "4"})
    void aBusyHostsCreditDelayDoesNotStarveTheLink(int streams) {
        assertFullLinkShortQueue(new Link(50_000_000L / 8, 40 * MS, streams, 12 * MS), 512);
    }

    /**
     * A download that starts on a session idle but for its pings (its stream opened a round trip
     * before the first byte, as a public connection's stream does): the wait before its first
     * byte is no round of a slow consumer, so the start window is not taken back, and the window
     * reaches the path's bandwidth-delay product within a few rounds.
     */
    @ParameterizedTest(name = "{0} Mbit/s, {1} ms RTT")
    @CsvSource({"50, 80", "20, 120", "100, 40"})
    void aDownloadFillsTheLinkWithinItsFirstSecond(int mbits, int rttMillis) {
        Link link = new Link(mbits * 1_000_000L / 8, rttMillis * MS / 2, 1, 0);
        Result first = link.run(2 * SECOND, SECOND);
        assertThat(first.throughput).as("first second's throughput over the link's rate").isGreaterThanOrEqualTo(0.8);
    }

    private static void assertFullLinkShortQueue(Link link, int queueKib) {
        Result r = link.run(30 * SECOND, 15 * SECOND);
        double allowed = (2.0 * WindowGain.DEFAULT_TARGET_NANOS + 2.0 * link.oneWay / 8) / SECOND;
        assertThat(r.throughput).as("throughput over the link's rate").isGreaterThanOrEqualTo(0.95);
        assertThat(r.meanQueueBytes / link.bytesPerSecond).as("mean queue, seconds")
                .isLessThanOrEqualTo(allowed);
        assertThat(r.maxQueueBytes).as("largest queue after convergence, bytes (of %d KiB)", queueKib)
                .isLessThan(queueKib * 1024L);
    }

    record Result(double throughput, double meanQueueBytes, long maxQueueBytes) {
    }

    /** The bottleneck, both ends and the clock. */
    private static final class Link {
        private final long bytesPerSecond;
        private final long oneWay;
        private final PriorityQueue<Event> events = new PriorityQueue<>();
        private final long creditDelay;
        private final ReceiveWindow[] windows;
        private final PathDelay delay = new PathDelay();
        private long seq;
        private final long[] credit;
        /** When the bottleneck has sent all it holds. */
        private long busyUntil;

        Link(long bytesPerSecond, long oneWay, int streams, long creditDelay) {
            this.bytesPerSecond = bytesPerSecond;
            this.oneWay = oneWay;
            this.creditDelay = creditDelay;
            this.windows = new ReceiveWindow[streams];
            this.credit = new long[streams];
            for (int i = 0; i < streams; i++) {
                windows[i] = new ReceiveWindow(MuxSettings.GUARANTEED_WINDOW, 16 << 20, 0);
                credit[i] = MuxSettings.GUARANTEED_WINDOW + windows[i].grow(MuxSettings.DEFAULT_INITIAL_WINDOW
                        - MuxSettings.GUARANTEED_WINDOW, ReceiveWindow.UNLIMITED);
            }
        }

        Result run(long duration, long measureFrom) {
            long delivered = 0;
            double queueSum = 0;
            long queueSamples = 0;
            long maxQueue = 0;
            // the transfer starts a second into a session whose other streams' traffic had it ping the idle path
            for (int i = 0; i < windows.length; i++) {
                at(SECOND, Kind.SEND, i, credit[i]);
                credit[i] = 0;
            }
            at(0, Kind.PING, 0, 0);
            at(measureFrom, Kind.SAMPLE, 0, 0);
            while (!events.isEmpty()) {
                Event e = events.poll();
                long now = e.time;
                if (now > duration) {
                    break;
                }
                switch (e.kind) {
                    case SEND -> {
                        credit[e.stream] += e.value;
                        while (credit[e.stream] > 0) {
                            int n = (int) Math.min(SEGMENT, credit[e.stream]);
                            credit[e.stream] -= n;
                            at(enqueue(now, n) + oneWay, Kind.DATA, e.stream, n);
                        }
                    }
                    case DATA -> {
                        int n = (int) e.value;
                        ReceiveWindow window = windows[e.stream];
                        assertThat(window.onReceived(n)).as("the sender kept to its credit").isTrue();
                        if (now >= measureFrom) {
                            delivered += n;
                        }
                        int more = window.onConsumed(n, now, delay, ReceiveWindow.UNLIMITED);
                        if (more > 0) {
                            at(now + creditDelay + oneWay, Kind.SEND, e.stream, more);
                        }
                    }
                    case PING -> {
                        at(now + oneWay, Kind.PING_AT_SENDER, 0, now); // across the idle direction
                        at(now + PING_EVERY, Kind.PING, 0, 0);
                    }
                    case PING_AT_SENDER -> at(enqueue(now, PONG_BYTES) + oneWay, Kind.PONG, 0, e.value);
                    case PONG -> delay.onSample(now - e.value, now);
                    case SAMPLE -> {
                        long queue = queueBytes(now);
                        queueSum += queue;
                        queueSamples++;
                        maxQueue = Math.max(maxQueue, queue);
                        at(now + MS, Kind.SAMPLE, 0, 0);
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

        private void at(long time, Kind kind, int stream, long value) {
            events.add(new Event(time, seq++, kind, stream, value));
        }
    }

    private enum Kind { SEND, DATA, PING, PING_AT_SENDER, PONG, SAMPLE }

    private record Event(long time, long seq, Kind kind, int stream, long value) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            return time != o.time ? Long.compare(time, o.time) : Long.compare(seq, o.seq);
        }
    }
}
