package dev.tunnel.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A burst starts a batch at once and the rest in order in later rounds, skipping what is no longer wanted. */
class PacedStartsTest {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoop loop = group.next();

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A start that records its number, unless unwanted by then. */
    private static final class Item {
        final int n;
        final List<Integer> started;
        boolean wanted = true;

        Item(int n, List<Integer> started) {
            this.n = n;
            this.started = started;
        }

        void submitTo(PacedStarts paced) {
            paced.submit(() -> started.add(n), () -> wanted);
        }
    }

    @Test
    @Timeout(10)
    void aBurstStartsOneBatchNowAndTheRestInOrderInLaterRounds() throws Exception {
        List<Integer> started = new ArrayList<>();
        CompletableFuture<int[]> seen = new CompletableFuture<>();
        loop.execute(() -> {
            PacedStarts paced = new PacedStarts(loop, 8);
            List<Item> items = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                Item item = new Item(i, started);
                items.add(item);
                item.submitTo(paced);
            }
            int atOnce = started.size();
            items.get(20).wanted = false; // reset while queued
            // a task submitted now runs before any deferred batch: the loop is not held by the burst
            loop.execute(() -> seen.complete(new int[] {atOnce, started.size(), paced.queued()}));
        });
        int[] s = seen.get(5, TimeUnit.SECONDS);
        assertThat(s[0]).isEqualTo(8);
        assertThat(s[1]).isEqualTo(8);
        assertThat(s[2]).isEqualTo(42);

        CompletableFuture<List<Integer>> done = new CompletableFuture<>();
        loop.scheduleAtFixedRate(() -> {
            if (started.size() == 49) {
                done.complete(List.copyOf(started));
            }
        }, 1, 1, TimeUnit.MILLISECONDS);
        List<Integer> order = done.get(5, TimeUnit.SECONDS);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            if (i != 20) {
                expected.add(i);
            }
        }
        assertThat(order).isEqualTo(expected);
    }

    @Test
    @Timeout(10)
    void aQuietLoopStartsEachAtOnce() throws Exception {
        List<Integer> started = new ArrayList<>();
        PacedStarts paced = loop.submit(() -> new PacedStarts(loop, 2)).get();
        for (int round = 0; round < 5; round++) {
            int n = round;
            // one or two per turn: always within the budget, never queued
            int atOnce = loop.submit(() -> {
                new Item(n * 2, started).submitTo(paced);
                new Item(n * 2 + 1, started).submitTo(paced);
                return started.size();
            }).get();
            assertThat(atOnce).isEqualTo(n * 2 + 2);
        }
        assertThat(loop.submit(paced::queued).get()).isZero();
    }
}
