package dev.tunnel.client.config;

import dev.tunnel.config.ConfigError;
import dev.tunnel.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

@Timeout(10)
class ClientConfigTest {

    @TempDir
    Path dir;

    @Test
    void defaultsMatchFrp() throws Exception {
        ClientConfig cfg = parse("");
        assertThat(cfg.serverAddr).isEqualTo("127.0.0.1");
        assertThat(cfg.serverPort).isEqualTo(7000);
        assertThat(cfg.loginFailExit).isTrue();
        assertThat(cfg.auth.method).isEqualTo("token");
        assertThat(cfg.auth.token).isEmpty();
        ClientConfig.Transport t = cfg.transport;
        assertThat(t.protocol).isEqualTo("tcp");
        assertThat(t.dialServerTimeout).isEqualTo(10);
        assertThat(t.tcpMux).isTrue();
        assertThat(t.tcpMuxKeepaliveInterval).isEqualTo(30);
        assertThat(t.poolCount).isEqualTo(1);
        assertThat(t.heartbeatInterval).isEqualTo(30);
        assertThat(t.heartbeatTimeout).isEqualTo(90);
        assertThat(t.tcpMuxInitialWindow).isEqualTo(262_144);
        assertThat(t.tcpMuxMaxWindow).isEqualTo(16_777_216);
        assertThat(t.sendBufferSize).isZero();
        assertThat(t.receiveBufferSize).isZero();
        assertThat(t.eventLoopThreads).isZero();
        assertThat(t.tls.enable).isTrue();
        assertThat(t.tls.certFile).isNull();
        assertThat(t.tls.keyFile).isNull();
        assertThat(t.tls.trustedCaFile).isNull();
        assertThat(t.tls.serverName).isNull();
        assertThat(cfg.effectiveServerName()).isEqualTo("127.0.0.1");
        assertThat(cfg.log.level).isEqualTo("info");
        assertThat(cfg.log.to).isEqualTo("console");
        assertThat(cfg.proxies).isEmpty();
    }

    @Test
    void readsFrpcTomlWithProxiesAndPlugin() throws Exception {
        Files.createDirectory(dir.resolve("www"));
        ClientConfig cfg = parse("""
                serverAddr = "vps.example.org"
                serverPort = 7000
                auth.token = "{{ .Envs.FRP_TOKEN }}"
                transport.tls.serverName = "tunnel.example.org"

                [[proxies]]
                name = "ssh"
                type = "tcp"
                localPort = 22
                remotePort = 6000

                [[proxies]]
                name = "web"
                remotePort = 6080
                [proxies.plugin]
                type = "static_file"
                localPath = "./www"
                httpUser = "me"
                """);
        assertThat(cfg.auth.token).isEqualTo("s3cret");
        assertThat(cfg.effectiveServerName()).isEqualTo("tunnel.example.org");
        assertThat(cfg.proxies).hasSize(2);
        ProxyConfig ssh = cfg.proxies.get(0);
        assertThat(ssh.localIP).isEqualTo("127.0.0.1");
        assertThat(ssh.localPort).isEqualTo(22);
        assertThat(ssh.remotePort).isEqualTo(6000);
        assertThat(ssh.plugin).isNull();
        PluginConfig web = cfg.proxies.get(1).plugin;
        assertThat(web.type).isEqualTo("static_file");
        assertThat(web.localPath).isEqualTo("./www");
        assertThat(web.stripPrefix).isEmpty();
        assertThat(web.httpUser).isEqualTo("me");
        assertThat(web.httpPassword).isEmpty();
    }

    @Test
    void ioUringTakesAutoOnOffInEitherMode() throws Exception {
        assertThat(messages("""
                [transport]
                ioUring = "sometimes"
                """)).containsExactly("c.toml:2: transport.ioUring: \"sometimes\" (expected: \"auto\", \"on\", \"off\")");
        assertThat(parse("""
                [transport]
                tcpMux = false
                ioUring = "on"
                """).transport.ioUring).isEqualTo("on");
    }

    @Test
    void badValuesNameKeyValueAndRange() {
        assertThat(messages("""
                serverPort = 0
                [transport]
                poolCount = 101
                heartbeatInterval = 0
                dialServerTimeout = -5
                receiveBufferSize = 1
                drainTimeout = 4000
                eventLoopThreads = 300
                [[proxies]]
                name = "a"
                localPort = 22
                [[proxies]]
                name = "b"
                localPort = 70000
                remotePort = 65536
                """)).containsExactly(
                "c.toml:1: serverPort: 0 (expected: 1-65535)",
                "c.toml:3: transport.poolCount: 101 (expected: 0-100)",
                "c.toml:4: transport.heartbeatInterval: 0 (expected: -1 to disable, or a positive number of seconds)",
                "c.toml:5: transport.dialServerTimeout: -5 (expected: 1 or more)",
                "c.toml:6: transport.receiveBufferSize: 1 (expected: 0 for the OS default, or 4096-67108864 bytes)",
                "c.toml:7: transport.drainTimeout: 4000 (expected: 0-3600)",
                "c.toml:8: transport.eventLoopThreads: 300 (expected: 0-256)",
                "c.toml:14: proxies[1].localPort: 70000 (expected: 1-65535)",
                "c.toml:15: proxies[1].remotePort: 65536 (expected: 0-65535)");
    }

    @Test
    void heartbeatTimeoutNotBelowInterval() {
        assertThat(messages("[transport]\nheartbeatInterval = 60\nheartbeatTimeout = 30\n")).containsExactly(
                "c.toml:3: transport.heartbeatTimeout: 30 (expected: at least transport.heartbeatInterval, 60)");
    }

    @Test
    void unsupportedProtocolAndProxyAndPluginTypes() {
        assertThat(messages("""
                transport.protocol = "kcp"
                [[proxies]]
                name = "p2p"
                type = "xtcp"
                localPort = 53
                [[proxies]]
                name = "sock"
                [proxies.plugin]
                type = "virtual_net"
                """)).containsExactly(
                "c.toml:1: transport.protocol = \"kcp\" is not supported yet (supported: \"tcp\")",
                "c.toml:4: proxies[0].type = \"xtcp\" is not supported yet (supported: \"tcp\", \"udp\", \"http\", \"https\", \"stcp\", \"sudp\", \"tcpmux\")",
                "c.toml:9: proxies[1].plugin.type = \"virtual_net\" is not supported yet (supported: \"static_file\","
                        + " \"unix_domain_socket\", \"http_proxy\", \"socks5\", \"tls2raw\", \"http2http\","
                        + " \"http2https\", \"https2http\", \"https2https\")");
    }

    @Test
    void readsFrpcHttpAndHttpsProxies() throws Exception {
        ClientConfig cfg = parse("""
                [[proxies]]
                name = "web01"
                type = "http"
                localPort = 80
                httpUser = "admin"
                httpPassword = "admin"
                subdomain = "web01"
                customDomains = ["web01.yourdomain.com", "*.yourdomain.com"]
                locations = ["/", "/pic"]
                routeByHTTPUser = "abc"
                hostHeaderRewrite = "example.com"
                requestHeaders.set.x-from-where = "frp"
                responseHeaders.set.foo = "bar"
                transport.proxyProtocolVersion = "v1"
                [[proxies]]
                name = "web02"
                type = "https"
                localPort = 8000
                subdomain = "web02"
                customDomains = ["web02.yourdomain.com"]
                transport.proxyProtocolVersion = "v2"
                """);
        ProxyConfig web = cfg.proxies.get(0);
        assertThat(web.customDomains).containsExactly("web01.yourdomain.com", "*.yourdomain.com");
        assertThat(web.locations).containsExactly("/", "/pic");
        assertThat(web.requestHeaders.set).containsEntry("x-from-where", "frp");
        assertThat(web.responseHeaders.set).containsEntry("foo", "bar");
        assertThat(web.routeByHTTPUser).isEqualTo("abc");
        assertThat(cfg.proxies.get(1).transport.proxyProtocolVersion).isEqualTo("v2");
    }

    @Test
    void vhostKeysAreCheckedPerType() {
        assertThat(messages("""
                [[proxies]]
                name = "a"
                type = "http"
                localPort = 80
                remotePort = 8080
                locations = ["pic"]
                httpPassword = "p"
                transport.proxyProtocolVersion = "v3"
                [[proxies]]
                name = "b"
                type = "https"
                localPort = 443
                customDomains = ["x.com"]
                httpUser = "u"
                [[proxies]]
                name = "c"
                localPort = 22
                customDomains = ["x.com"]
                """)).containsExactly(
                "c.toml:1: proxies[0].customDomains: missing: a http proxy needs customDomains or subdomain (or both)",
                "c.toml:5: proxies[0].remotePort: 8080 is for tcp and udp proxies; a http proxy is reached on the"
                        + " server's vhostHTTPPort",
                "c.toml:6: proxies[0].locations[0]: \"pic\" (expected a path prefix starting with /)",
                "c.toml:7: proxies[0].httpPassword: is set without httpUser",
                "c.toml:8: proxies[0].transport.proxyProtocolVersion: \"v3\" (expected: \"\", \"v1\", \"v2\")",
                "c.toml:14: proxies[1].httpUser: applies to http proxies only",
                "c.toml:18: proxies[2].customDomains: applies to http, https and tcpmux proxies only");
    }

    @Test
    void bandwidthLimitIsReadAsFrpReadsIt() throws Exception {
        ClientConfig cfg = parse("""
                [[proxies]]
                name = "files"
                localPort = 8080
                transport.bandwidthLimit = "500KB"
                transport.bandwidthLimitMode = "server"
                [[proxies]]
                name = "ssh"
                localPort = 22
                """);
        assertThat(cfg.proxies.get(0).transport.bandwidthLimit).isEqualTo("500KB");
        assertThat(cfg.proxies.get(0).transport.bandwidthLimitMode).isEqualTo("server");
        assertThat(cfg.proxies.get(1).transport.bandwidthLimit).as("default: none").isEmpty();
        assertThat(cfg.proxies.get(1).transport.bandwidthLimitMode).as("frp's default").isEqualTo("client");
    }

    @Test
    void bandwidthLimitKeysAreChecked() {
        assertThat(messages("""
                [[proxies]]
                name = "a"
                localPort = 80
                transport.bandwidthLimit = "1GB"
                [[proxies]]
                name = "b"
                localPort = 81
                transport.bandwidthLimit = "1MB"
                transport.bandwidthLimitMode = "both"
                [[proxies]]
                name = "c"
                type = "sudp"
                secretKey = "k"
                localPort = 53
                transport.bandwidthLimit = "1MB"
                transport.bandwidthLimitMode = "server"
                """)).containsExactly(
                "c.toml:4: proxies[0].transport.bandwidthLimit: \"1GB\" (expected: a positive number of KB or MB"
                        + " per second, e.g. \"500KB\" or \"1MB\")",
                "c.toml:9: proxies[1].transport.bandwidthLimitMode: \"both\" (expected: \"client\", \"server\")",
                "c.toml:15: proxies[2].transport.bandwidthLimit: a sudp proxy is limited in mode \"client\" only"
                        + " (bandwidthLimitMode is \"server\")");
    }

    @Test
    void unsupportedFrpKeysTopLevelAndPerProxy() {
        assertThat(messages("""
                store.path = "./store.json"
                [transport]
                proxyURL = "http://proxy:8080"
                [[proxies]]
                name = "ssh"
                localPort = 22
                transport.useCompression = true
                [[visitors]]
                name = "v"
                type = "stcp"
                serverName = "ssh"
                bindPort = 9000
                keepTunnelOpen = true
                """)).containsExactly(
                "c.toml:1: \"store.path\" is an frp setting that tunnel does not support yet",
                "c.toml:3: \"transport.proxyURL\" is an frp setting that tunnel does not support yet",
                "c.toml:7: proxies[0].transport.useCompression: true is not supported yet: the tunnel does not"
                        + " compress a proxy's traffic (set it to false)",
                "c.toml:13: \"visitors[0].keepTunnelOpen\" is an frp setting that tunnel does not support yet");
    }

    @Test
    void startAndEnabledChooseWhatRunsAsFrpFiltersThem() throws Exception {
        ClientConfig cfg = parse("""
                start = ["a", "b", "v"]
                [[proxies]]
                name = "a"
                localPort = 1
                [[proxies]]
                name = "b"
                localPort = 2
                enabled = false
                [[proxies]]
                name = "c"
                localPort = 3
                [[visitors]]
                name = "v"
                type = "stcp"
                serverName = "x"
                secretKey = "k"
                bindPort = 9000
                [[visitors]]
                name = "w"
                type = "stcp"
                serverName = "x"
                secretKey = "k"
                bindPort = 9001
                """);
        assertThat(cfg.activeProxies()).extracting(p -> p.name).containsExactly("a");
        assertThat(cfg.activeVisitors()).extracting(v -> v.name).containsExactly("v");
        assertThat(messages("start = [\"nope\"]"))
                .containsExactly("c.toml:1: start[0]: \"nope\" names no proxy or visitor of this file");
    }

    @Test
    void healthCheckLoadBalancerAndLabelsAreReadWithFrpsDefaults() throws Exception {
        ClientConfig cfg = parse("""
                clientID = "nas-1"
                metadatas.site = "home"
                transport.connectServerLocalIP = "127.0.0.1"
                [[proxies]]
                name = "ssh"
                localPort = 22
                remotePort = 6022
                loadBalancer.group = "ssh"
                loadBalancer.groupKey = "k"
                healthCheck.type = "tcp"
                transport.useEncryption = true
                transport.useCompression = false
                metadatas.owner = "ops"
                [proxies.annotations]
                "prefix/key2" = "value2"
                [[proxies]]
                name = "ssh2"
                localPort = 2222
                remotePort = 6022
                loadBalancer.group = "ssh"
                loadBalancer.groupKey = "k"
                healthCheck.type = "http"
                healthCheck.path = "/status"
                healthCheck.httpHeaders = [{ name = "x-from-where", value = "frp" }]
                """);
        assertThat(cfg.clientID).isEqualTo("nas-1");
        assertThat(cfg.metadatas).containsEntry("site", "home");
        assertThat(cfg.transport.connectServerLocalIP).isEqualTo("127.0.0.1");
        ProxyConfig ssh = cfg.proxies.get(0);
        assertThat(ssh.healthCheck.type).isEqualTo("tcp");
        assertThat(ssh.healthCheck.timeoutSeconds).as("frp's default").isEqualTo(3);
        assertThat(ssh.healthCheck.maxFailed).as("frp's default").isEqualTo(1);
        assertThat(ssh.healthCheck.intervalSeconds).as("frp's default").isEqualTo(10);
        assertThat(ssh.loadBalancer.group).isEqualTo("ssh");
        assertThat(ssh.transport.useEncryption).isTrue();
        assertThat(ssh.metadatas).containsEntry("owner", "ops");
        assertThat(ssh.annotations).containsEntry("prefix/key2", "value2");
        HealthCheckConfig http = cfg.proxies.get(1).healthCheck;
        assertThat(http.path).isEqualTo("/status");
        assertThat(http.httpHeaders).singleElement().satisfies(h -> {
            assertThat(h.name).isEqualTo("x-from-where");
            assertThat(h.value).isEqualTo("frp");
        });
    }

    @Test
    void aHealthCheckOnAPluginProxyIsRefusedSayingFrpWouldSkipIt() {
        assertThat(messages("""
                [[proxies]]
                name = "files"
                type = "tcp"
                remotePort = 6000
                healthCheck.type = "tcp"
                [proxies.plugin]
                type = "static_file"
                localPath = "/srv"
                """)).containsExactly("c.toml:5: proxies[0].healthCheck.type: a health check connects to"
                + " localIP:localPort, and a proxy served by a plugin has none (frp skips the check then, without a"
                + " word; remove healthCheck or the plugin)");
    }

    @Test
    void healthCheckLoadBalancerLabelsAndEncryptionAreChecked() {
        assertThat(messages("""
                transport.connectServerLocalIP = "eth0"
                transport.tls.enable = false
                [[proxies]]
                name = "a"
                localPort = 80
                healthCheck.type = "icmp"
                [[proxies]]
                name = "b"
                localPort = 81
                healthCheck.type = "http"
                healthCheck.maxFailed = -1
                healthCheck.httpHeaders = [{ name = "bad name", value = "v" }]
                [[proxies]]
                name = "c"
                type = "udp"
                localPort = 53
                loadBalancer.group = "dns"
                [[proxies]]
                name = "d"
                localPort = 82
                remotePort = 7000
                loadBalancer.groupKey = "k"
                transport.useEncryption = true
                [[proxies]]
                name = "e"
                localPort = 83
                remotePort = 7000
                loadBalancer.group = "other"
                """)).containsExactlyInAnyOrder(
                "c.toml:6: proxies[0].healthCheck.type: \"icmp\" (expected: \"\", \"tcp\", \"http\")",
                "c.toml:10: proxies[1].healthCheck.path: must not be empty",
                "c.toml:11: proxies[1].healthCheck.maxFailed: -1 (expected: 0-1000)",
                "c.toml:12: proxies[1].healthCheck.httpHeaders[0].name: \"bad name\" (expected: an HTTP header name)",
                "c.toml:17: proxies[2].loadBalancer.group: groups are for proxy types tcp, http, https, tcpmux (type is"
                        + " \"udp\")",
                "c.toml:22: proxies[3].loadBalancer.groupKey: set without loadBalancer.group",
                "c.toml:23: proxies[3].transport.useEncryption: true needs transport.tls.enable = true: the tunnel"
                        + " encrypts every proxy's traffic with the TLS of its connection to the server, and has no"
                        + " encryption of its own (set transport.tls.enable = true, or useEncryption = false)",
                "c.toml:27: proxies[4].remotePort: 7000 is already used by proxies[3]",
                "c.toml:1: transport.connectServerLocalIP: \"eth0\" (expected: an IP address of this machine, such"
                        + " as \"192.168.1.10\"; \"\" = any)");
    }

    @Test
    void udpSecretProxiesAndVisitorsAreCheckedKeyByKey() {
        assertThat(messages("""
                udpPacketSize = 70000
                [[proxies]]
                name = "dns"
                type = "udp"
                localPort = 53
                secretKey = "x"
                [[proxies]]
                name = "ssh"
                type = "stcp"
                localPort = 22
                remotePort = 6000
                [[visitors]]
                name = "v"
                type = "xtcp"
                serverName = ""
                bindPort = 0
                """)).containsExactly(
                "c.toml:1: udpPacketSize: 70000 (expected: 1-65535)",
                "c.toml:6: proxies[0].secretKey: only stcp and sudp proxies have one (type is \"udp\")",
                "c.toml:7: proxies[1].secretKey: missing (required)",
                "c.toml:11: proxies[1].remotePort: 6000: a stcp proxy has no public port (visitors reach it through the"
                        + " server); remove remotePort",
                "c.toml:14: visitors[0].type = \"xtcp\" is not supported yet (supported: \"stcp\", \"sudp\")",
                "c.toml:15: visitors[0].serverName: must not be empty",
                "c.toml:16: visitors[0].bindPort: 0 (expected: 1-65535)");
    }

    @Test
    void poolModeAcceptsUdpAndRefusesSecretProxiesAndVisitorsNamingTcpMux() {
        assertThat(messages("""
                transport.tcpMux = false
                [[proxies]]
                name = "dns"
                type = "udp"
                localPort = 53
                [[proxies]]
                name = "secret"
                type = "sudp"
                secretKey = "k"
                localPort = 53
                [[visitors]]
                name = "v"
                type = "sudp"
                serverName = "dns"
                bindPort = 9053
                """)).containsExactly(
                "c.toml:8: proxies[1].type: \"sudp\" needs transport.tcpMux = true (pool mode has no streams: a"
                        + " visitor's stream is spliced to a stream of the provider's session)",
                "c.toml:13: visitors[0].type: \"sudp\" visitors need transport.tcpMux = true (pool mode has no"
                        + " streams: a visitor's stream is spliced to a stream of the provider's session)");
    }

    @Test
    void aServerConfigIsRecognizedAsSuch() {
        assertThat(messages("bindPort = 7000\nauth.token = \"t\"\nvhostHTTPPort = 8080\n")).containsExactly(
                "c.toml:1: bindPort: this looks like a server config (it sets bindPort): run it with tunnel-server; a client config"
                        + " sets serverAddr, serverPort and [[proxies]]");
    }

    @Test
    void unknownKeyWithSuggestionAndLine() {
        assertThat(messages("serverAddr = \"x\"\n\n[transport]\n\ntcpMx = true\n[[proxies]]\nname = \"a\"\nlocalPort = 1\nremote_port = 6000\n"))
                .containsExactly(
                        "c.toml:5: unknown key \"transport.tcpMx\" (did you mean \"transport.tcpMux\"?)",
                        "c.toml:9: unknown key \"proxies[0].remote_port\" (did you mean \"proxies[0].remotePort\"?)");
    }

    @Test
    void duplicateProxyNamesAndRemotePorts() {
        assertThat(messages("""
                [[proxies]]
                name = "ssh"
                localPort = 22
                remotePort = 6000
                [[proxies]]
                name = "ssh"
                localPort = 2222
                remotePort = 6000
                """)).containsExactly(
                "c.toml:6: proxies[1].name: \"ssh\" is already the name of proxies[0] (names must be unique)",
                "c.toml:8: proxies[1].remotePort: 6000 is already used by proxies[0]");
    }

    @Test
    void proxyNeedsNameAndLocalPort() {
        assertThat(messages("\n[[proxies]]\ntype = \"tcp\"\n")).containsExactly(
                "c.toml:2: proxies[0].name: missing (required)",
                "c.toml:2: proxies[0].localPort: missing (required unless a plugin is set; expected: 1-65535)");
    }

    @Test
    void staticFileLocalPathMustExist() {
        assertThat(messages("""
                [[proxies]]
                name = "web"
                plugin.type = "static_file"
                plugin.localPath = "./nope"
                [[proxies]]
                name = "web2"
                plugin = { type = "static_file" }
                """)).containsExactly(
                "c.toml:4: proxies[0].plugin.localPath: directory \"./nope\" does not exist (looked for " + dir.resolve("nope") + ")",
                "c.toml:7: proxies[1].plugin.localPath: missing (required)");
    }

    @Test
    void readsFrpcPluginKeys() throws Exception {
        ClientConfig cfg = parse("""
                [[proxies]]
                name = "plugin_unix_domain_socket"
                remotePort = 6003
                [proxies.plugin]
                type = "unix_domain_socket"
                unixPath = "/var/run/docker.sock"
                [[proxies]]
                name = "plugin_http_proxy"
                remotePort = 6004
                [proxies.plugin]
                type = "http_proxy"
                httpUser = "abc"
                httpPassword = "abc"
                [[proxies]]
                name = "plugin_socks5"
                remotePort = 6005
                [proxies.plugin]
                type = "socks5"
                username = "abc"
                password = "abd"
                [[proxies]]
                name = "plugin_tls2raw"
                remotePort = 6008
                [proxies.plugin]
                type = "tls2raw"
                localAddr = "127.0.0.1:80"
                [[proxies]]
                name = "plugin_https2http"
                type = "https"
                customDomains = ["test.yourdomain.com"]
                [proxies.plugin]
                type = "https2http"
                localAddr = "127.0.0.1:80"
                hostHeaderRewrite = "127.0.0.1"
                requestHeaders.set.x-from-where = "frp"
                enableHTTP2 = false
                """);
        assertThat(cfg.proxies.get(0).plugin.unixPath).isEqualTo("/var/run/docker.sock");
        assertThat(cfg.proxies.get(1).plugin.httpPassword).isEqualTo("abc");
        assertThat(cfg.proxies.get(2).plugin.username).isEqualTo("abc");
        assertThat(cfg.proxies.get(2).plugin.password).isEqualTo("abd");
        assertThat(cfg.proxies.get(3).plugin.localAddr).isEqualTo("127.0.0.1:80");
        assertThat(cfg.proxies.get(3).plugin.crtPath).isEmpty();
        PluginConfig bridge = cfg.proxies.get(4).plugin;
        assertThat(bridge.hostHeaderRewrite).isEqualTo("127.0.0.1");
        assertThat(bridge.requestHeaders.set).containsEntry("x-from-where", "frp");
        assertThat(bridge.enableHTTP2).isFalse();
    }

    @Test
    void pluginKeysAreCheckedPerType() throws Exception {
        Files.writeString(dir.resolve("server.crt"), "cert");
        assertThat(messages("""
                [[proxies]]
                name = "a"
                plugin.type = "unix_domain_socket"
                [[proxies]]
                name = "b"
                plugin.type = "socks5"
                plugin.httpUser = "u"
                [[proxies]]
                name = "c"
                plugin.type = "tls2raw"
                plugin.localAddr = "127.0.0.1"
                plugin.crtPath = "server.crt"
                [[proxies]]
                name = "d"
                type = "udp"
                plugin.type = "http_proxy"
                [[proxies]]
                name = "e"
                plugin.type = "https2http"
                plugin.localAddr = "127.0.0.1:80"
                plugin.enableHTTP2 = true
                [[proxies]]
                name = "f"
                plugin.type = "http2http"
                plugin.localAddr = "127.0.0.1:80"
                plugin.crtPath = "server.crt"
                """)).containsExactly(
                "c.toml:3: proxies[0].plugin.unixPath: missing (required)",
                "c.toml:7: proxies[1].plugin.httpUser: not a key of plugin \"socks5\" (its keys: type, allowDestinations, password, username)",
                "c.toml:10: proxies[2].plugin.keyPath: missing (proxies[2].plugin.crtPath and proxies[2].plugin.keyPath must be set together)",
                "c.toml:11: proxies[2].plugin.localAddr: \"127.0.0.1\" (expected: host:port, e.g. 127.0.0.1:8080)",
                "c.toml:16: proxies[3].plugin: a plugin serves byte streams only (proxy types tcp, http, https, stcp, tcpmux;"
                        + " type is \"udp\")",
                "c.toml:21: proxies[4].plugin.enableHTTP2: true is not supported yet (the plugin speaks HTTP/1.1 to visitors;"
                        + " set false or remove the key)",
                "c.toml:26: proxies[5].plugin.crtPath: not a key of plugin \"http2http\" (its keys: type, hostHeaderRewrite,"
                        + " localAddr, requestHeaders)");
    }

    @Test
    void certFileWithoutKeyFile() throws Exception {
        Files.writeString(dir.resolve("client.crt"), "cert");
        assertThat(messages("[transport.tls]\ncertFile = \"client.crt\"\n")).containsExactly(
                "c.toml:1: transport.tls.keyFile: missing (transport.tls.certFile and transport.tls.keyFile must be set together)");
    }

    @Test
    void manyErrorsInOneException() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse("""
                serverPort = "7000"
                webServer.port = 70000
                [transport]
                poolCnt = 2
                [[proxies]]
                name = "x"
                localPort = 0
                """));
        assertThat(e.errors()).hasSize(4);
        assertThat(e.getMessage().lines()).hasSize(4);
    }

    @Test
    void unsetEnvVariableIsNamed() {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ClientConfig.parse("auth.token = \"{{ .Envs.NOT_SET }}\"\n", "c.toml", name -> null, dir));
        assertThat(e.getMessage()).isEqualTo(
                "c.toml:1: auth.token: environment variable NOT_SET is not set (used as \"{{ .Envs.NOT_SET }}\")");
    }

    @Test
    void loadsFromFileResolvingAgainstBaseDir() throws Exception {
        Files.createDirectory(dir.resolve("site"));
        Path file = dir.resolve("frpc.toml");
        Files.writeString(file, "[[proxies]]\nname = \"w\"\nplugin = { type = \"static_file\", localPath = \"site\" }\n");
        assertThat(ClientConfig.load(file, dir).proxies.get(0).plugin.localPath).isEqualTo("site");
    }

    @Test
    void userTokenFileAndServerFingerprint() throws Exception {
        Files.writeString(dir.resolve("token"), "from-file\r\n");
        ClientConfig cfg = parse("""
                user = "alice"
                auth.tokenFile = "token"
                transport.tls.serverFingerprint = "sha256:%s"
                """.formatted("ab:".repeat(31) + "ab"));
        assertThat(cfg.user).isEqualTo("alice");
        assertThat(cfg.auth.token).isEqualTo("from-file");
    }

    @Test
    void badFingerprintUserAndTokenFile() {
        assertThat(messages("""
                user = "al ice"
                auth.tokenFile = "missing"
                transport.tls.serverFingerprint = "md5:00"
                """)).containsExactly(
                "c.toml:1: user: \"al ice\" (expected: no spaces, dots or control characters)",
                "c.toml:2: auth.tokenFile: file \"missing\" does not exist (looked for " + dir.resolve("missing") + ")",
                "c.toml:3: transport.tls.serverFingerprint: \"md5:00\" is not a SHA-256 fingerprint"
                        + " (expected: sha256: and 32 hex bytes, e.g. sha256:AB:CD:...)");
    }

    private ClientConfig parse(String toml) throws ConfigException {
        return ClientConfig.parse(toml, "c.toml", Map.of("FRP_TOKEN", "s3cret")::get, dir);
    }

    private List<String> messages(String toml) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(toml));
        assertThat(e).as("expected errors").isNotNull();
        return e.errors().stream().map(ConfigError::toString).toList();
    }
}
