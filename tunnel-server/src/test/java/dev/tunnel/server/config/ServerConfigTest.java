package dev.tunnel.server.config;

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
class ServerConfigTest {

    @Test
    void defaultsMatchFrp() throws Exception {
        ServerConfig cfg = parse("");
        assertThat(cfg.bindAddr).isEqualTo("0.0.0.0");
        assertThat(cfg.bindPort).isEqualTo(7000);
        assertThat(cfg.proxyBindAddr).isNull();
        assertThat(cfg.effectiveProxyBindAddr()).isEqualTo("0.0.0.0");
        assertThat(cfg.userConnTimeout).isEqualTo(10);
        assertThat(cfg.maxPortsPerClient).isZero();
        assertThat(cfg.auth.method).isEqualTo("token");
        assertThat(cfg.auth.token).isEmpty();
        assertThat(cfg.transport.tcpMux).isTrue();
        assertThat(cfg.transport.tcpMuxKeepaliveInterval).isEqualTo(30);
        assertThat(cfg.transport.heartbeatTimeout).isEqualTo(90);
        assertThat(cfg.transport.maxPoolCount).isEqualTo(5);
        assertThat(cfg.transport.tls.force).isFalse();
        assertThat(cfg.transport.tls.certFile).isNull();
        assertThat(cfg.transport.tls.keyFile).isNull();
        assertThat(cfg.transport.tls.trustedCaFile).isNull();
        assertThat(cfg.transport.tcpMuxInitialWindow).isEqualTo(262_144);
        assertThat(cfg.transport.tcpMuxMaxWindow).isEqualTo(16_777_216);
        assertThat(cfg.transport.sendBufferSize).isZero();
        assertThat(cfg.transport.receiveBufferSize).isZero();
        assertThat(cfg.transport.eventLoopThreads).isZero();
        assertThat(cfg.allowPorts).isEmpty();
        assertThat(cfg.isPortAllowed(1)).isTrue();
        assertThat(cfg.log.level).isEqualTo("info");
        assertThat(cfg.log.to).isEqualTo("console");
    }

    @Test
    void readsFrpsToml() throws Exception {
        ServerConfig cfg = parse("""
                bindAddr = "127.0.0.1"
                bindPort = 7100
                proxyBindAddr = "0.0.0.0"
                auth.token = "{{ .Envs.FRP_TOKEN }}"
                allowPorts = [
                  { start = 6000, end = 7000 },
                  { single = 3389 },
                ]
                [transport]
                heartbeatTimeout = -1
                tls.force = true
                [log]
                level = "debug"
                """);
        assertThat(cfg.bindPort).isEqualTo(7100);
        assertThat(cfg.effectiveProxyBindAddr()).isEqualTo("0.0.0.0");
        assertThat(cfg.auth.token).isEqualTo("s3cret");
        assertThat(cfg.transport.heartbeatTimeout).isEqualTo(-1);
        assertThat(cfg.transport.tls.force).isTrue();
        assertThat(cfg.log.level).isEqualTo("debug");
        assertThat(cfg.isPortAllowed(6000)).isTrue();
        assertThat(cfg.isPortAllowed(7000)).isTrue();
        assertThat(cfg.isPortAllowed(3389)).isTrue();
        assertThat(cfg.isPortAllowed(7001)).isFalse();
        assertThat(cfg.isPortAllowed(5999)).isFalse();
    }

    @Test
    void badValuesNameKeyValueAndRange() {
        assertThat(messages("""
                bindPort = 70000
                userConnTimeout = 0
                maxPortsPerClient = -1
                [transport]
                heartbeatTimeout = 0
                maxPoolCount = -2
                drainTimeout = -1
                tcpMuxInitialWindow = 1000
                sendBufferSize = 100
                eventLoopThreads = 257
                [log]
                level = "loud"
                """)).containsExactly(
                "s.toml:1: bindPort: 70000 (expected: 1-65535)",
                "s.toml:2: userConnTimeout: 0 (expected: 1 or more)",
                "s.toml:3: maxPortsPerClient: -1 (expected: 0 or more)",
                "s.toml:5: transport.heartbeatTimeout: 0 (expected: -1 to disable, or a positive number of seconds)",
                "s.toml:6: transport.maxPoolCount: -2 (expected: 0-100)",
                "s.toml:7: transport.drainTimeout: -1 (expected: 0-3600)",
                "s.toml:8: transport.tcpMuxInitialWindow: 1000 (expected: 65536-1073741824)",
                "s.toml:9: transport.sendBufferSize: 100 (expected: 0 for the OS default, or 4096-67108864 bytes)",
                "s.toml:10: transport.eventLoopThreads: 257 (expected: 0-256)",
                "s.toml:12: log.level: \"loud\" (expected: \"trace\", \"debug\", \"info\", \"warn\", \"error\")");
    }

    @Test
    void maxWindowMustNotBeBelowInitial() {
        assertThat(messages("[transport]\ntcpMuxInitialWindow = 1048576\ntcpMuxMaxWindow = 65536\n")).containsExactly(
                "s.toml:3: transport.tcpMuxMaxWindow: 65536 (expected: 1048576-1073741824)");
    }

    @Test
    void badPortRanges() {
        assertThat(messages("""
                allowPorts = [
                  { start = 7000, end = 6000 },
                  { single = 70000 },
                  { start = 1, end = 2, single = 3 },
                  { },
                  { start = 0, end = 10 },
                ]
                """)).containsExactly(
                "s.toml:2: allowPorts[0]: {start = 7000, end = 6000} (expected: start <= end)",
                "s.toml:3: allowPorts[1].single: 70000 (expected: 1-65535)",
                "s.toml:4: allowPorts[2]: {single = 3} mixes single with start/end (expected: {start = N, end = M} or {single = N})",
                "s.toml:5: allowPorts[3]: empty entry (expected: {start = N, end = M} or {single = N}, ports 1-65535)",
                "s.toml:6: allowPorts[4].start: 0 (expected: 1-65535)");
    }

    @Test
    void unsupportedFrpSettings() {
        assertThat(messages("""
                kcpBindPort = 7000
                [webServer]
                assetsDir = "./static"
                [auth]
                method = "oidc"
                oidc.issuer = "https://example.org"
                [sshTunnelGateway]
                bindPort = 2200
                """)).containsExactly(
                "s.toml:1: \"kcpBindPort\" is an frp setting that tunnel does not support yet",
                "s.toml:3: \"webServer.assetsDir\" is an frp setting that tunnel does not support yet",
                "s.toml:5: auth.method = \"oidc\" is not supported yet (supported: \"token\")",
                "s.toml:6: \"auth.oidc.issuer\" is an frp setting that tunnel does not support yet",
                "s.toml:8: \"sshTunnelGateway.bindPort\" is an frp setting that tunnel does not support yet");
    }

    @Test
    void readsHttpPluginsWithEveryOpAndTls() throws Exception {
        ServerConfig cfg = parse("""
                [[httpPlugins]]
                ops = ["NewProxy", "CloseProxy", "Ping", "NewWorkConn", "NewUserConn"]
                tlsVerify = true
                name = "fleet"
                addr = "https://plugins.example:8443"

                [[httpPlugins]]
                addr = "http://[::1]:9002"
                name = "audit"
                ops = ["Login"]
                """);
        assertThat(cfg.httpPlugins).hasSize(2);
        assertThat(cfg.httpPlugins.get(0).ops).hasSize(5);
        assertThat(cfg.httpPlugins.get(0).tlsVerify).isTrue();
        assertThat(cfg.httpPlugins.get(0).path).as("frp's default").isEmpty();
        assertThat(cfg.httpPlugins.get(1).name).isEqualTo("audit");
        assertThat(cfg.httpPlugins.get(1).tlsVerify).as("frp's default").isFalse();
        assertThat(parse("").httpPlugins).isEmpty();
    }

    @Test
    void badHttpPluginsNameTheEntryAndWhatIsAllowed() {
        assertThat(messages("""
                [[httpPlugins]]
                name = "a"
                addr = "127.0.0.1:9000"
                path = "handler"
                ops = ["Login", "login"]

                [[httpPlugins]]
                name = "a"
                addr = ""
                ops = ["NewProxy"]
                """)).containsExactlyInAnyOrder(
                "s.toml:4: httpPlugins[0].path: \"handler\" (expected: empty or starting with /)",
                "s.toml:5: httpPlugins[0].ops[1]: \"login\" (expected one of: Login, NewProxy, CloseProxy, Ping,"
                        + " NewWorkConn, NewUserConn)",
                "s.toml:8: httpPlugins[1].name: \"a\" is listed twice",
                "s.toml:9: httpPlugins[1].addr: must not be empty");
    }

    @Test
    void tcpKeepaliveAndDetailedErrorsAreReadWithFrpsDefaults() throws Exception {
        ServerConfig defaults = parse("");
        assertThat(defaults.transport.tcpKeepalive).isEqualTo(7200);
        assertThat(defaults.detailedErrorsToClient).isTrue();
        ServerConfig set = parse("""
                detailedErrorsToClient = false
                [transport]
                tcpKeepalive = -1
                """);
        assertThat(set.transport.tcpKeepalive).isEqualTo(-1);
        assertThat(set.detailedErrorsToClient).isFalse();
    }

    @Test
    void tcpmuxPortMustBeItsOwn() {
        assertThat(messages("bindPort = 7000\ntcpmuxHTTPConnectPort = 7000\ntcpmuxPassthrough = true\n")).containsExactly(
                "s.toml:2: tcpmuxHTTPConnectPort: 7000 is also bindPort (expected: another port)");
    }

    @Test
    void proxyProtocolTrustedIPsAreAddressesOrNetworks() throws Exception {
        assertThat(parse("proxyProtocolTrustedIPs = [\"10.0.0.0/8\", \"127.0.0.1\", \"::1\"]\n").proxyProtocolTrustedIPs)
                .containsExactly("10.0.0.0/8", "127.0.0.1", "::1");
        assertThat(messages("proxyProtocolTrustedIPs = [\"127.0.0.1\", \"lb.example\", \"10.0.0.0/40\"]\n"))
                .hasSize(2).anySatisfy(m -> assertThat(m).contains("proxyProtocolTrustedIPs[1]").contains("no host names"))
                .anySatisfy(m -> assertThat(m).contains("proxyProtocolTrustedIPs[2]").contains("prefix /40 (expected: 0-32)"));
    }

    @Test
    void webServerAndPrometheusKeys() throws Exception {
        ServerConfig cfg = ServerConfig.parse("""
                enablePrometheus = true
                [webServer]
                port = 7500
                user = "admin"
                password = "pw"
                [log]
                maxDays = 7
                disablePrintColor = true
                """, "s.toml", name -> null);
        assertThat(cfg.webServer.settings()).isEqualTo(new dev.tunnel.web.WebSettings("127.0.0.1", 7500, "admin", "pw", null, null));
        assertThat(cfg.enablePrometheus).isTrue();
        assertThat(cfg.log.maxDays).isEqualTo(7);
    }

    @Test
    void aWebServerBeyondLoopbackNeedsCredentials() {
        assertThat(messages("[webServer]\naddr = \"0.0.0.0\"\nport = 7500\n")).containsExactly(
                "s.toml:2: webServer.addr: \"0.0.0.0\" is not a loopback address, so webServer.user and"
                        + " webServer.password must be set (anyone who reaches it could use it)");
        assertThat(messages("enablePrometheus = true\n")).containsExactly(
                "s.toml:1: enablePrometheus: true needs webServer.port (the metrics are served by the web server at /metrics)");
        assertThat(messages("[webServer]\nport = 7500\npprofEnable = true\n")).containsExactly(
                "s.toml:3: webServer.pprofEnable: true is not supported (Go's profiler; on the JVM use JFR or jcmd)");
    }

    @Test
    void readsFrpsVhostKeys() throws Exception {
        ServerConfig cfg = parse("""
                vhostHTTPPort = 80
                vhostHTTPSPort = 443
                vhostHTTPTimeout = 30
                vhostHTTPBodyTimeout = 20
                subDomainHost = "frps.com"
                [[users]]
                name = "alice"
                token = "t"
                allowDomains = ["alice.dev", "*.alice.dev"]
                """);
        assertThat(cfg.vhostHTTPPort).isEqualTo(80);
        assertThat(cfg.vhostHTTPSPort).isEqualTo(443);
        assertThat(cfg.vhostHTTPTimeout).isEqualTo(30);
        assertThat(cfg.vhostHTTPBodyTimeout).isEqualTo(20);
        assertThat(cfg.subDomainHost).isEqualTo("frps.com");
        assertThat(cfg.users.get(0).allowDomains).containsExactly("alice.dev", "*.alice.dev");
        assertThat(parse("").vhostHTTPPort).as("off unless set, as in frp").isZero();
    }

    @Test
    void badVhostValuesNameTheKey() {
        assertThat(messages("""
                bindPort = 7000
                vhostHTTPPort = 7000
                vhostHTTPSPort = 70000
                vhostHTTPTimeout = 0
                subDomainHost = "*.frps.com"
                custom404Page = "missing-404.html"
                vhostHTTPBodyTimeout = -1
                [[users]]
                name = "alice"
                token = "t"
                allowDomains = ["a..b"]
                """)).hasSize(7).contains(
                "s.toml:2: vhostHTTPPort: 7000 is also bindPort (expected: another port)",
                "s.toml:3: vhostHTTPSPort: 70000 (expected: 0-65535)",
                "s.toml:4: vhostHTTPTimeout: 0 (expected: 1 or more)",
                "s.toml:5: subDomainHost: \"*.frps.com\" (expected a domain without wildcard, such as example.com)",
                "s.toml:7: vhostHTTPBodyTimeout: -1 (expected: 1 or more)",
                "s.toml:11: users[0].allowDomains[0]: \"a..b\" has an empty or over-long label (expected labels of 1-63 characters)")
                .anySatisfy(m -> assertThat(m).startsWith("s.toml:6: custom404Page: file \"missing-404.html\" does not exist"));
    }

    @Test
    void aClientConfigIsRecognizedAsSuch() {
        assertThat(messages("serverAddr = \"vps.example\"\nserverPort = 7000\n[[proxies]]\nname = \"a\"\n")).containsExactly(
                "s.toml:1: serverAddr: this looks like a client config (it sets serverAddr): run it with tunnel-client; a server"
                        + " config sets bindPort");
    }

    @Test
    void unknownKeyWithSuggestion() {
        assertThat(messages("bindPort = 7000\n[transport]\ntcpMx = true\n")).containsExactly(
                "s.toml:3: unknown key \"transport.tcpMx\" (did you mean \"transport.tcpMux\"?)");
    }

    @Test
    void certFileWithoutKeyFile(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("server.crt"), "cert");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ServerConfig.parse(
                "[transport.tls]\ncertFile = \"server.crt\"\n", "s.toml", name -> null, dir));
        assertThat(e.errors()).extracting(ConfigError::toString).containsExactly(
                "s.toml:1: transport.tls.keyFile: missing (transport.tls.certFile and transport.tls.keyFile must be set together)");
    }

    @Test
    void tlsFilesMustExist(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("server.crt"), "cert");
        Files.writeString(dir.resolve("server.key"), "key");
        ServerConfig ok = ServerConfig.parse("[transport.tls]\ncertFile = \"server.crt\"\nkeyFile = \"server.key\"\n",
                "s.toml", name -> null, dir);
        assertThat(ok.transport.tls.certFile).isEqualTo("server.crt");

        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ServerConfig.parse(
                "[transport.tls]\ncertFile = \"server.crt\"\nkeyFile = \"server.key\"\ntrustedCaFile = \"ca.crt\"\n",
                "s.toml", name -> null, dir));
        assertThat(e.getMessage()).isEqualTo("s.toml:4: transport.tls.trustedCaFile: file \"ca.crt\" does not exist (looked for "
                + dir.resolve("ca.crt") + ")");
    }

    @Test
    void loadsFromFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("frps.toml");
        Files.writeString(file, "bindPort = 7001\n");
        assertThat(ServerConfig.load(file).bindPort).isEqualTo(7001);
    }

    @Test
    void tokenFromAFileAndUsersWithTheirOwnTokensAndPorts(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("token"), "from-file\n");
        Files.writeString(dir.resolve("bob.token"), "bob-secret\n");
        ServerConfig cfg = ServerConfig.parse("""
                auth.tokenFile = "token"
                [[users]]
                name = "alice"
                token = "alice-secret"
                allowPorts = [{ single = 6001 }]
                maxPortsPerClient = 2
                [[users]]
                name = "bob"
                tokenFile = "bob.token"
                """, "s.toml", k -> null, dir);
        assertThat(cfg.auth.token).isEqualTo("from-file");
        assertThat(cfg.users).extracting(u -> u.name + "/" + u.token + "/" + u.maxPortsPerClient)
                .containsExactly("alice/alice-secret/2", "bob/bob-secret/-1");
        assertThat(cfg.users.get(0).allowPorts.get(0).single).isEqualTo(6001);
    }

    @Test
    void badUsersAndLimitsAreReportedWithoutEchoingSecrets(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("token"), "file-secret");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ServerConfig.parse("""
                auth.token = "inline-secret"
                auth.tokenFile = "token"
                auth.maxFailedLogins = -1
                transport.loginTimeout = 0
                transport.maxStreamsPerClient = -5
                [[users]]
                name = "a b"
                [[users]]
                name = "a b"
                token = "x"
                allowPorts = [{ start = 10, end = 5 }]
                """, "s.toml", k -> null, dir));
        List<String> messages = e.errors().stream().map(ConfigError::toString).toList();
        assertThat(messages).contains(
                "s.toml:2: auth.tokenFile: set together with auth.token (expected: one of them)",
                "s.toml:3: auth.maxFailedLogins: -1 (expected: 0 or more)",
                "s.toml:4: transport.loginTimeout: 0 (expected: 1 or more)",
                "s.toml:5: transport.maxStreamsPerClient: -5 (expected: 0 or more)",
                "s.toml:7: users[0].name: \"a b\" (expected: no spaces, dots or control characters)",
                "s.toml:9: users[1].name: \"a b\" is listed twice",
                "s.toml:11: users[1].allowPorts[0]: {start = 10, end = 5} (expected: start <= end)");
        assertThat(messages).anyMatch(m -> m.contains("users[0].token: missing"));
        assertThat(String.join("\n", messages)).doesNotContain("inline-secret").doesNotContain("file-secret");
    }

    @Test
    void aTokenVerifierStandsForTheTokenOnlyWithThePakeLoginOn() throws Exception {
        String verifier = dev.tunnel.protocol.auth.TokenVerifier.create("s3cret").format();
        ServerConfig cfg = parse("auth.tokenVerifier = \"" + verifier + "\"\n"
                + "[[users]]\nname = \"alice\"\ntokenVerifier = \"" + verifier + "\"\n");
        assertThat(cfg.auth.tokenVerifier).isEqualTo(verifier);
        assertThat(cfg.auth.pake).isEqualTo("preferred");
        assertThat(cfg.users.get(0).tokenVerifier).isEqualTo(verifier);

        List<String> messages = messages("auth.token = \"inline-secret\"\nauth.tokenVerifier = \"" + verifier + "\"\n"
                + "auth.pake = \"off\"\n[[users]]\nname = \"bob\"\ntokenVerifier = \""
                + verifier.replaceFirst(":[^:]+:", ":AAAA:") + "\"\n");
        assertThat(messages).contains(
                "s.toml:2: auth.tokenVerifier: set together with auth.token (expected: one of them)",
                "s.toml:2: auth.tokenVerifier: needs the PAKE login, but auth.pake = \"off\" (expected: \"preferred\""
                        + " or \"required\"; only PAKE-capable clients can log in with a verifier)");
        assertThat(messages).anyMatch(m -> m.contains("users[0].tokenVerifier: malformed token verifier: a salt of 3 bytes"));
        assertThat(messages("auth.pake = \"maybe\"")).contains(
                "s.toml:1: auth.pake: \"maybe\" (expected: \"off\", \"preferred\", \"required\")");
        assertThat(String.join("\n", messages)).doesNotContain("inline-secret");
    }

    private static ServerConfig parse(String toml) throws ConfigException {
        return ServerConfig.parse(toml, "s.toml", Map.of("FRP_TOKEN", "s3cret")::get);
    }

    private static java.util.List<String> messages(String toml) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(toml));
        assertThat(e).as("expected errors").isNotNull();
        return e.errors().stream().map(ConfigError::toString).toList();
    }
}
