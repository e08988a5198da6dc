package dev.tunnel.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dashboard's table under many proxies: online ones are all listed, offline ones are capped at
 * {@link ServerStats#MAX_OFFLINE} with the longest offline dropped first, and a proxy that starts
 * again under its name keeps its place among the online ones.
 */
@Timeout(30)
class ServerStatsTest {

    @Test
    void manyProxiesClosingKeepTheLastMaxOfflineAndEveryOnlineOne() {
        ServerStats stats = new ServerStats(Clock.systemUTC());
        int proxies = 3 * ServerStats.MAX_OFFLINE;
        for (int i = 0; i < proxies; i++) {
            stats.proxyOpened("p" + i, "stcp", "", "c", 0, null);
        }
        for (int i = 0; i < proxies - 10; i++) { // 10 stay online
            stats.proxyClosed("p" + i, null);
        }
        List<ServerStats.ProxyView> listed = stats.proxies();
        assertThat(listed.stream().filter(ServerStats.ProxyView::online)).hasSize(10);
        assertThat(listed.stream().filter(p -> !p.online())).hasSize(ServerStats.MAX_OFFLINE);
        assertThat(listed).extracting(ServerStats.ProxyView::name)
                .doesNotContain("p0", "p" + (proxies - 11 - ServerStats.MAX_OFFLINE))
                .contains("p" + (proxies - 10 - ServerStats.MAX_OFFLINE), "p" + (proxies - 11), "p" + (proxies - 1));
    }

    @Test
    void aProxyStartedAgainIsOnlineOnceAndItsOldCloseIsIgnored() {
        ServerStats stats = new ServerStats(Clock.systemUTC());
        stats.proxyOpened("web", "http", "", "a", 0, null);
        stats.proxyClosed("web", null);
        ServerStats.Traffic second = new Counts(1, 2, 0);
        stats.proxyOpened("web", "http", "", "b", 0, second);
        stats.proxyClosed("web", null); // a close of the earlier run: not this one
        assertThat(stats.proxies()).singleElement().satisfies(p -> {
            assertThat(p.online()).isTrue();
            assertThat(p.clientId()).isEqualTo("b");
        });
    }

    private record Counts(long bytesIn, long bytesOut, long connections) implements ServerStats.Traffic {
    }
}
