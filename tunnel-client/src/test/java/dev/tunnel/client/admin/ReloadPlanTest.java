package dev.tunnel.client.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import org.junit.jupiter.api.Test;

class ReloadPlanTest {

    private static ClientConfig config(String toml) throws Exception {
        return ClientConfig.parse(toml, "c.toml", name -> null);
    }

    private static final String BASE = """
            serverAddr = "vps.example"
            [[proxies]]
            name = "ssh"
            localPort = 22
            remotePort = 6000
            [[proxies]]
            name = "web"
            localPort = 8080
            remotePort = 6001
            [[proxies]]
            name = "db"
            localPort = 5432
            remotePort = 6002
            """;

    @Test
    void sameFileChangesNothing() throws Exception {
        ReloadPlan plan = ReloadPlan.of(config(BASE), config(BASE));
        assertThat(plan.proxiesUnchanged()).isTrue();
        assertThat(plan.unchanged()).extracting(p -> p.name).containsExactly("ssh", "web", "db");
        assertThat(plan.restartOnly()).isEmpty();
        assertThat(plan.summary()).isEqualTo("0 added, 0 removed, 0 changed, 3 unchanged");
    }

    @Test
    void addedRemovedAndChangedAreToldApart() throws Exception {
        ReloadPlan plan = ReloadPlan.of(config(BASE), config("""
                serverAddr = "vps.example"
                [[proxies]]
                name = "ssh"
                localPort = 22
                remotePort = 6000
                [[proxies]]
                name = "web"
                localPort = 8081
                remotePort = 6001
                [[proxies]]
                name = "redis"
                localPort = 6379
                remotePort = 6003
                """));
        assertThat(plan.added()).extracting(p -> p.name).containsExactly("redis");
        assertThat(plan.removed()).extracting(p -> p.name).containsExactly("db");
        assertThat(plan.changed()).extracting(p -> p.name).containsExactly("web");
        assertThat(plan.unchanged()).extracting(p -> p.name).containsExactly("ssh");
        assertThat(plan.summary()).isEqualTo("1 added (redis), 1 removed (db), 1 changed (web), 1 unchanged");
    }

    @Test
    void aNestedKeyCountsAsAChange() throws Exception {
        String plugin = """
                [[proxies]]
                name = "files"
                remotePort = 6004
                [proxies.plugin]
                type = "static_file"
                localPath = "%s"
                stripPrefix = "%s"
                """;
        String dir = System.getProperty("java.io.tmpdir").replace("\\", "/");
        ReloadPlan plan = ReloadPlan.of(config(plugin.formatted(dir, "a")), config(plugin.formatted(dir, "b")));
        assertThat(plan.changed()).extracting(p -> p.name).containsExactly("files");
    }

    @Test
    void keysOutsideProxiesNeedARestart() throws Exception {
        ReloadPlan plan = ReloadPlan.of(config(BASE), config(BASE.replace("vps.example", "other.example")
                + "[transport]\npoolCount = 3\n"));
        assertThat(plan.proxiesUnchanged()).isTrue();
        assertThat(plan.restartOnly()).containsExactly("serverAddr", "transport");
        assertThat(plan.summary()).endsWith("; not applied until a restart: serverAddr, transport");
    }

    @Test
    void comparesEveryPublicField() {
        ProxyConfig a = new ProxyConfig();
        ProxyConfig b = new ProxyConfig();
        assertThat(ReloadPlan.same(a, b)).isTrue();
        b.localIP = "10.0.0.2";
        assertThat(ReloadPlan.same(a, b)).isFalse();
    }
}
