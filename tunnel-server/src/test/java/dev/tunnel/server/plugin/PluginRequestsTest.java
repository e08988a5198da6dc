package dev.tunnel.server.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.Options;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The JSON the server sends plugins and what it takes from their answers, with frp's field names. */
@Timeout(10)
class PluginRequestsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final UserInfo ALICE = new UserInfo("alice", Map.of("team", "ops"), "run-1");

    @Test
    void aRequestCarriesVersionOpAndContent() throws Exception {
        JsonNode body = JSON.readTree(PluginRequests.body(PluginOp.CLOSE_PROXY, PluginRequests.closeProxy(ALICE, "alice.ssh")));
        assertThat(body.get("version").asText()).isEqualTo("0.1.0");
        assertThat(body.get("op").asText()).isEqualTo("CloseProxy");
        assertThat(body.get("content").get("proxy_name").asText()).isEqualTo("alice.ssh");
        JsonNode user = body.get("content").get("user");
        assertThat(user.get("user").asText()).isEqualTo("alice");
        assertThat(user.get("metas").get("team").asText()).isEqualTo("ops");
        assertThat(user.get("run_id").asText()).isEqualTo("run-1");
    }

    @Test
    void loginContentHasFrpsFieldsAndNoPrivilegeKey() {
        Login login = new Login("tunnel 1.0", "nas", "run-1", 1_700_000_000_123L, "nonce", "proof", false, 3, 65536,
                "bob", "", List.of(), Options.builder().put("clientID", "nas-1").put("metadatas.token", "t").build());
        JsonNode c = PluginRequests.login(login, new InetSocketAddress("10.0.0.7", 50123));
        assertThat(c.get("version").asText()).isEqualTo("tunnel 1.0");
        assertThat(c.get("hostname").asText()).isEqualTo("nas");
        assertThat(c.get("user").asText()).isEqualTo("bob");
        assertThat(c.get("timestamp").asLong()).isEqualTo(1_700_000_000L);
        assertThat(c.get("run_id").asText()).isEqualTo("run-1");
        assertThat(c.get("client_id").asText()).isEqualTo("nas-1");
        assertThat(c.get("metas").get("token").asText()).isEqualTo("t");
        assertThat(c.get("pool_count").asInt()).isEqualTo(3);
        assertThat(c.get("client_address").asText()).isEqualTo("10.0.0.7:50123");
        assertThat(c.has("privilege_key")).isFalse();
    }

    @Test
    void ipv6AddressesArePrintedAsGoPrintsThem() {
        assertThat(PluginRequests.address(new InetSocketAddress("::1", 80))).isEqualTo("[0:0:0:0:0:0:0:1]:80");
    }

    @Test
    void newProxyContentMapsOptionsToFrpsFieldsAndLeavesEmptyOnesOut() {
        Options options = Options.builder()
                .put("remotePort", 6000)
                .putList("customDomains", List.of("a.example", "b.example"))
                .put("subdomain", "")
                .put("httpUser", "u").put("httpPassword", "p")
                .put("requestHeaders.set.X-From", "tunnel")
                .put("loadBalancer.group", "g").put("loadBalancer.groupKey", "k")
                .put("metadatas.id", "123")
                .put("transport.proxyProtocolVersion", "v2")
                .build();
        JsonNode c = PluginRequests.newProxy(ALICE, "alice.web", "http", options);
        assertThat(c.get("proxy_name").asText()).isEqualTo("alice.web");
        assertThat(c.get("proxy_type").asText()).isEqualTo("http");
        assertThat(c.get("remote_port").asInt()).isEqualTo(6000);
        assertThat(c.get("custom_domains")).extracting(JsonNode::asText).containsExactly("a.example", "b.example");
        assertThat(c.has("subdomain")).as("empty, as frp's omitempty").isFalse();
        assertThat(c.get("http_user").asText()).isEqualTo("u");
        assertThat(c.get("http_pwd").asText()).isEqualTo("p");
        assertThat(c.get("headers").get("X-From").asText()).isEqualTo("tunnel");
        assertThat(c.get("group").asText()).isEqualTo("g");
        assertThat(c.get("group_key").asText()).isEqualTo("k");
        assertThat(c.get("metas").get("id").asText()).isEqualTo("123");
        assertThat(c.toString()).as("no frp field for it").doesNotContain("v2");
        assertThat(c.get("user").get("user").asText()).isEqualTo("alice");
    }

    @Test
    void aReplacedNewProxyContentReplacesTheSettingsFrpHasAndKeepsTheOthers() throws Exception {
        Options original = Options.builder()
                .put("remotePort", 6000)
                .putList("customDomains", List.of("a.example"))
                .put("metadatas.id", "123")
                .put("transport.proxyProtocolVersion", "v2")
                .build();
        Options changed = NewProxyFields.apply(JSON.readTree("""
                {"proxy_name": "alice.web", "proxy_type": "tcp", "remote_port": 7001,
                 "metas": {"id": "456", "zone": "eu"}, "unknown_field": 1}"""), "alice.web", "tcp", original);
        assertThat(changed.integer("remotePort", 0)).isEqualTo(7001);
        assertThat(changed.list("customDomains")).as("left out = unset, as frp").isEmpty();
        assertThat(changed.map("metadatas")).containsExactlyInAnyOrderEntriesOf(Map.of("id", "456", "zone", "eu"));
        assertThat(changed.string("transport.proxyProtocolVersion", "")).isEqualTo("v2");
    }

    @Test
    void aReplacedContentMayNotRenameTheProxyOrChangeItsType() {
        assertThatThrownBy(() -> NewProxyFields.apply(JSON.readTree("{\"proxy_name\": \"bob.web\"}"), "alice.web",
                "tcp", Options.EMPTY)).isInstanceOf(PluginException.BadContent.class).hasMessageContaining("proxy_name");
        assertThatThrownBy(() -> NewProxyFields.apply(JSON.readTree("{\"proxy_type\": \"udp\"}"), "alice.web",
                "tcp", Options.EMPTY)).isInstanceOf(PluginException.BadContent.class).hasMessageContaining("proxy_type");
    }

    @Test
    void aReplacedContentWithWrongTypesIsRefusedNamingTheField() {
        assertThatThrownBy(() -> NewProxyFields.apply(JSON.readTree("{\"remote_port\": \"6000\"}"), "w", "tcp",
                Options.EMPTY)).hasMessageContaining("remote_port");
        assertThatThrownBy(() -> NewProxyFields.apply(JSON.readTree("{\"remote_port\": 70000}"), "w", "tcp",
                Options.EMPTY)).hasMessageContaining("0-65535");
        assertThatThrownBy(() -> NewProxyFields.apply(JSON.readTree("{\"custom_domains\": \"a\"}"), "w", "http",
                Options.EMPTY)).hasMessageContaining("custom_domains");
        assertThatThrownBy(() -> NewProxyFields.apply(JSON.readTree("{\"metas\": {\"a\": 1}}"), "w", "tcp",
                Options.EMPTY)).hasMessageContaining("metas.a");
        assertThatThrownBy(() -> NewProxyFields.apply(JSON.readTree("[]"), "w", "tcp", Options.EMPTY))
                .hasMessageContaining("not an object");
    }

    @Test
    void loginChangesTakeUserAndMetas() throws Exception {
        LoginChange change = LoginChange.of(JSON.readTree("{\"user\": \"carol\", \"metas\": {\"a\": \"b\"}, \"run_id\": \"x\"}"));
        assertThat(change.user()).isEqualTo("carol");
        assertThat(change.metas()).containsExactly(Map.entry("a", "b"));
        assertThat(LoginChange.of(JSON.readTree("{}")).metas()).as("left out = none, as frp").isEmpty();
        assertThatThrownBy(() -> LoginChange.of(JSON.readTree("{\"user\": 5}"))).hasMessageContaining("user");
    }

    @Test
    void answersAreReadAsFrpReadsThem() throws Exception {
        assertThat(parse("{\"reject\": true, \"reject_reason\": \"invalid user\"}"))
                .isEqualTo(new PluginResponse(true, "invalid user", true, null));
        assertThat(parse("{\"reject\": false, \"unchange\": true}")).isEqualTo(PluginResponse.UNCHANGED);
        PluginResponse replaced = parse("{\"unchange\": \"false\", \"content\": {\"user\": \"x\"}}");
        assertThat(replaced.unchange()).as("a string boolean, as frp's doc writes it").isFalse();
        assertThat(replaced.content().get("user").asText()).isEqualTo("x");
        assertThat(parse("{\"reject\": false, \"unchange\": true, \"extra\": [1, 2]}")).isEqualTo(PluginResponse.UNCHANGED);
    }

    @Test
    void malformedAnswersAreErrorsThatSayWhy() {
        assertThatThrownBy(() -> parse("not json")).isInstanceOf(IOException.class).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> parse("[true]")).hasMessageContaining("not a JSON object");
        assertThatThrownBy(() -> parse("{\"reject\": 1}")).hasMessageContaining("reject");
        assertThatThrownBy(() -> parse("{\"reject\": false}")).hasMessageContaining("no \"content\"");
        assertThatThrownBy(() -> parse("")).isInstanceOf(IOException.class);
    }

    @Test
    void endpointsAreReadAsFrpBuildsItsUrl() {
        assertThat(PluginEndpoint.parse("127.0.0.1:9000", "/handler"))
                .isEqualTo(new PluginEndpoint(false, "127.0.0.1", 9000, "/handler"));
        assertThat(PluginEndpoint.parse("https://plugins.example", "")).isEqualTo(
                new PluginEndpoint(true, "plugins.example", 443, "/"));
        PluginEndpoint v6 = PluginEndpoint.parse("http://[::1]:9001", "/h");
        assertThat(v6.host()).isEqualTo("::1");
        assertThat(v6.hostHeader()).isEqualTo("[::1]:9001");
        assertThat(v6.requestTarget(PluginOp.NEW_PROXY)).isEqualTo("/h?version=0.1.0&op=NewProxy");
        assertThatThrownBy(() -> PluginEndpoint.parse("127.0.0.1:9000", "/h?x=1")).hasMessageContaining("query");
        assertThatThrownBy(() -> PluginEndpoint.parse("http://", "")).isInstanceOf(IllegalArgumentException.class);
    }

    private static PluginResponse parse(String body) throws IOException {
        return PluginResponse.parse(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }
}
