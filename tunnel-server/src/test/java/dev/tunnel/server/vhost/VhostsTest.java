package dev.tunnel.server.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.server.proxy.AppConnection;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class VhostsTest {
    private final Vhosts vhosts = new Vhosts(80, 443, "tunnel.test");

    private static VhostTarget target(String name) {
        IdleUpstreams idle = new IdleUpstreams(null, 0, 60); // never sweeps: nothing is parked
        return new VhostTarget() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public EventLoop eventLoop() {
                return null;
            }

            @Override
            public boolean admit(Channel publicChannel) {
                return false;
            }

            @Override
            public void open(Channel publicChannel, java.util.function.Consumer<AppConnection> opened) {
                opened.accept(null);
            }

            @Override
            public IdleUpstreams idle() {
                return idle;
            }

            @Override
            public dev.tunnel.protocol.relay.RelayCounter traffic() {
                return dev.tunnel.protocol.relay.RelayCounter.NONE;
            }

            @Override
            public void carry(Channel publicConn, io.netty.buffer.ByteBuf firstBytes) {
                firstBytes.release();
            }
        };
    }

    private static VhostSpec http(List<String> domains, String subdomain, List<String> locations) {
        return new VhostSpec(false, domains, subdomain, locations, "", "", "", Map.of(), Map.of(), "");
    }

    @Test
    void customDomainsSubdomainAndLocationsBecomeRoutes() throws Exception {
        VhostTarget t = target("alice.blog");
        Vhosts.Registration r = vhosts.register(t, http(List.of("Blog.Example.com", "*.example.org"), "blog",
                List.of("/", "/api")), "alice", DomainAllowList.any());
        assertThat(r.domains()).containsExactly("blog.example.com", "*.example.org", "blog.tunnel.test");
        assertThat(r.port(false)).isEqualTo(80);
        assertThat(vhosts.httpRoutes().find("blog.tunnel.test", "/api/x", "").location()).isEqualTo("/api");
        assertThat(vhosts.httpRoutes().find("www.example.org", "/", "").owner()).isEqualTo("alice.blog");
        r.close();
        assertThat(vhosts.httpRoutes().isEmpty()).isTrue();
    }

    @Test
    void aTakenRouteIsRefusedNamingItsOwnerAndNothingOfTheRefusedProxyStays() throws Exception {
        vhosts.register(target("first"), http(List.of("shop.example.com"), "", List.of("/cart")), "", DomainAllowList.any());
        assertThatThrownBy(() -> vhosts.register(target("second"), http(List.of("free.example.com", "shop.example.com"), "",
                List.of("/cart")), "", DomainAllowList.any()))
                .hasMessage("domain [shop.example.com] location [/cart] is already used by proxy [first]");
        assertThat(vhosts.httpRoutes().find("free.example.com", "/cart", "")).as("rolled back").isNull();
        assertThat(vhosts.httpRoutes().find("shop.example.com", "/cart", "").owner()).isEqualTo("first");
    }

    @Test
    void aLocationNoNormalizedPathCouldStartWithIsRefusedSayingWhatToWrite() {
        String[][] cases = {{"admin", "no path a request can have"}, {"/%61dmin", "is matched as \"/admin\""},
            {"/x/../admin", "is matched as \"/admin\""}, {"/a b", "holds ' '"}, {"/a;b", "holds ';'"}};
        for (String[] c : cases) {
            assertThatThrownBy(() -> vhosts.register(target("x"), http(List.of("a.example.com"), "", List.of("/", c[0])), "",
                    DomainAllowList.any())).as(c[0]).hasMessageStartingWith("locations[1] \"" + c[0] + "\"")
                    .hasMessageContaining(c[1]);
        }
        assertThat(vhosts.httpRoutes().isEmpty()).isTrue();
    }

    @Test
    void httpsDomainsAreTheirOwnTable() throws Exception {
        vhosts.register(target("web"), http(List.of("a.example.com"), "", List.of()), "", DomainAllowList.any());
        vhosts.register(target("tls"), VhostSpec.https(List.of("a.example.com"), ""), "", DomainAllowList.any());
        assertThatThrownBy(() -> vhosts.register(target("tls2"), VhostSpec.https(List.of("a.example.com"), ""), "",
                DomainAllowList.any())).hasMessageContaining("[tls]");
    }

    @Test
    void frpsChecksAndTheAllowListRefuseWithTheKey() {
        assertThatThrownBy(() -> vhosts.register(target("x"), http(List.of(), "", List.of()), "", DomainAllowList.any()))
                .hasMessageContaining("customDomains or subdomain is required");
        assertThatThrownBy(() -> vhosts.register(target("x"), http(List.of("a.tunnel.test"), "", List.of()), "",
                DomainAllowList.any())).hasMessageContaining("should not belong to subdomain host [tunnel.test]");
        assertThatThrownBy(() -> vhosts.register(target("x"), http(List.of(), "a.b", List.of()), "", DomainAllowList.any()))
                .hasMessageContaining("'.' and '*' are not supported in subdomain");
        assertThatThrownBy(() -> vhosts.register(target("x"), http(List.of("bad domain.com"), "", List.of()), "",
                DomainAllowList.any())).hasMessageContaining("customDomains:");
        assertThatThrownBy(() -> vhosts.register(target("x"), http(List.of("bob.example.com"), "", List.of()), "alice",
                DomainAllowList.of(List.of("*.alice.example.com"))))
                .hasMessage("domain [bob.example.com] is not allowed for user [alice] (allowDomains: *.alice.example.com)");
        Vhosts noSubdomains = new Vhosts(80, 0, "");
        assertThatThrownBy(() -> noSubdomains.register(target("x"), http(List.of(), "web", List.of()), "",
                DomainAllowList.any())).hasMessageContaining("no subDomainHost");
        assertThatThrownBy(() -> noSubdomains.register(target("x"), VhostSpec.https(List.of("a.com"), ""), "",
                DomainAllowList.any())).hasMessageContaining("vhostHTTPSPort");
    }
}
