package dev.tunnel.server.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RouteTableTest {
    private final RouteTable<String> table = new RouteTable<>();

    private String find(String host, String path, String user) {
        RouteTable.Entry<String> e = table.find(host, path, user);
        return e == null ? null : e.target();
    }

    @Test
    void exactHostBeatsWildcardAndWildcardBeatsCatchAll() {
        table.add("*", "", "", "all", "all");
        table.add("*.example.com", "", "", "wild", "wild");
        table.add("app.example.com", "", "", "exact", "exact");
        assertThat(find("app.example.com", "/", "")).isEqualTo("exact");
        assertThat(find("other.example.com", "/", "")).isEqualTo("wild");
        assertThat(find("unknown.org", "/", "")).isEqualTo("all");
    }

    @Test
    void theMostSpecificWildcardWinsAtAnyDepth() {
        table.add("*.example.com", "", "", "outer", "outer");
        table.add("*.b.example.com", "", "", "inner", "inner");
        assertThat(find("a.b.example.com", "/", "")).isEqualTo("inner");
        assertThat(find("x.y.example.com", "/", "")).isEqualTo("outer");
        assertThat(find("deep.x.y.example.com", "/", "")).isEqualTo("outer");
    }

    @Test
    void aWildcardDoesNotMatchItsOwnApexNorATwoLabelHostAgainstATld() {
        table.add("*.example.com", "", "", "wild", "wild");
        table.add("*.com", "", "", "tld", "tld");
        assertThat(find("example.com", "/", "")).isNull();
        assertThat(find("a.example.com", "/", "")).isEqualTo("wild");
    }

    @Test
    void theLongestLocationPrefixWins() {
        table.add("app.example.com", "", "", "root", "root");
        table.add("app.example.com", "/api", "", "api", "api");
        table.add("app.example.com", "/api/v2", "", "v2", "v2");
        assertThat(find("app.example.com", "/api/v2/users", "")).isEqualTo("v2");
        assertThat(find("app.example.com", "/api/v1", "")).isEqualTo("api");
        assertThat(find("app.example.com", "/index.html", "")).isEqualTo("root");
        assertThat(find("app.example.com", "/API/V2", "")).as("paths compare case-insensitively, as in frp").isEqualTo("v2");
    }

    @Test
    void withoutARootLocationAnUnmatchedPathFallsThroughToWildcards() {
        table.add("app.example.com", "/api", "", "api", "api");
        table.add("*.example.com", "", "", "wild", "wild");
        assertThat(find("app.example.com", "/other", "")).isEqualTo("wild");
    }

    @Test
    void routeByHttpUserComesBeforeAnyUser() {
        table.add("app.example.com", "", "", "everyone", "everyone");
        table.add("app.example.com", "", "alice", "alice", "alice");
        assertThat(find("app.example.com", "/", "alice")).isEqualTo("alice");
        assertThat(find("app.example.com", "/", "bob")).isEqualTo("everyone");
        assertThat(find("app.example.com", "/", "")).isEqualTo("everyone");
    }

    @Test
    void aSecondRegistrationIsRefusedNamingTheOwnerWhoKeepsIt() {
        assertThat(table.add("App.Example.com", "/x", "", "first", "first")).isNull();
        RouteTable.Entry<String> owner = table.add("app.example.com", "/x", "", "second", "second");
        assertThat(owner).isNotNull();
        assertThat(owner.owner()).isEqualTo("first");
        assertThat(find("app.example.com", "/x", "")).isEqualTo("first");
        assertThat(table.add("app.example.com", "/y", "", "second", "second")).as("another location is free").isNull();
    }

    @Test
    void removeTakesOnlyTheRouteOfItsTarget() {
        table.add("app.example.com", "", "", "first", "first");
        table.remove("app.example.com", "", "", "other");
        assertThat(find("app.example.com", "/", "")).isEqualTo("first");
        table.remove("app.example.com", "", "", "first");
        assertThat(find("app.example.com", "/", "")).isNull();
        assertThat(table.isEmpty()).isTrue();
    }

    @Test
    void membersOfAGroupShareTheRouteInTurnAndItStaysUntilTheLastLeaves() {
        RouteTable.Group g = new RouteTable.Group("web", "k");
        assertThat(table.join("app.example.com", "/x", "", "a", "a", g)).isNull();
        assertThat(table.join("APP.example.com", "/x", "", "b", "b", g)).isNull();
        assertThat(List.of(find("app.example.com", "/x/1", ""), find("app.example.com", "/x/2", ""),
                find("app.example.com", "/x/3", ""), find("app.example.com", "/x/4", ""))).containsExactly("a", "b", "a", "b");
        table.remove("app.example.com", "/x", "", "a");
        assertThat(List.of(find("app.example.com", "/x", ""), find("app.example.com", "/x", ""))).containsOnly("b");
        table.remove("app.example.com", "/x", "", "b");
        assertThat(table.isEmpty()).isTrue();
    }

    @Test
    void aWrongKeyAnotherGroupOrNoGroupIsRefusedSayingWhoHoldsTheRoute() {
        assertThat(table.join("app.example.com", "", "", "a", "a", new RouteTable.Group("web", "k"))).isNull();
        assertThat(table.join("app.example.com", "", "", "x", "x", new RouteTable.Group("web", "other")))
                .isEqualTo("is served by group [web], whose loadBalancer.groupKey differs from this proxy's (every"
                        + " proxy of a group must have the same groupKey)");
        assertThat(table.join("app.example.com", "", "", "y", "y", new RouteTable.Group("api", "k")))
                .isEqualTo("is already used by group [web] (proxies [a])");
        assertThat(table.join("app.example.com", "", "", "z", "z", null))
                .isEqualTo("is already used by group [web] (proxies [a])");
        table.add("solo.example.com", "", "", "solo", "solo");
        assertThat(table.join("solo.example.com", "", "", "w", "w", new RouteTable.Group("web", "k")))
                .isEqualTo("is already used by proxy [solo], which is in no group");
        assertThat(List.of(find("app.example.com", "/", ""), find("app.example.com", "/", ""))).containsOnly("a");
    }

    @Test
    void aGroupNeverShowsItsKey() {
        assertThat(new RouteTable.Group("web", "secret").toString()).isEqualTo("web");
    }
}
