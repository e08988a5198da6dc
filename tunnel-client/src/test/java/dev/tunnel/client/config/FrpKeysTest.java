package dev.tunnel.client.config;

import dev.tunnel.config.ConfigError;
import dev.tunnel.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** frpc keys beyond the basics: {@code includes}, {@code auth.tokenSource}, {@code version}, {@code wireProtocol}, {@code store}. */
@Timeout(20)
class FrpKeysTest {

    @TempDir
    Path dir;

    private ClientConfig load(String toml) throws Exception {
        return ClientConfig.load(Files.writeString(dir.resolve("frpc.toml"), toml), dir);
    }

    private List<String> errors(String toml) throws Exception {
        Path file = Files.writeString(dir.resolve("frpc.toml"), toml);
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ClientConfig.load(file, dir));
        assertThat(e).as("expected errors").isNotNull();
        return e.errors().stream().map(ConfigError::toString)
                .map(s -> s.startsWith(dir + "/") ? s.substring(dir.toString().length() + 1) : s).toList();
    }

    @Test
    void includesAddProxiesAndVisitorsFromGlobbedFilesInNameOrder() throws Exception {
        Files.createDirectory(dir.resolve("confd"));
        Files.writeString(dir.resolve("confd/b.toml"), "[[proxies]]\nname = \"b\"\ntype = \"tcp\"\nlocalPort = 2\n");
        Files.writeString(dir.resolve("confd/a.yaml"), "proxies:\n  - name: a\n    type: tcp\n    localPort: 1\n");
        Files.writeString(dir.resolve("confd/c.json"), "{\"visitors\": [{\"name\": \"v\", \"type\": \"stcp\","
                + " \"serverName\": \"x\", \"secretKey\": \"k\", \"bindPort\": 9000}]}");
        Files.writeString(dir.resolve("confd/notes.txt"), "not a config");
        ClientConfig cfg = load("""
                includes = ["confd/*.toml", "confd/*.yaml", "confd/*.json"]
                start = ["main", "a", "v"]
                [[proxies]]
                name = "main"
                type = "tcp"
                localPort = 3
                """);
        assertThat(cfg.proxies).extracting(p -> p.name).containsExactly("main", "b", "a");
        assertThat(cfg.visitors).extracting(v -> v.name).containsExactly("v");
        assertThat(cfg.activeProxies()).extracting(p -> p.name).containsExactly("main", "a");
    }

    @Test
    void includedFilesHoldOnlyProxiesAndVisitorsAndTheirErrorsNameTheirOwnLines() throws Exception {
        Files.createDirectory(dir.resolve("confd"));
        Files.writeString(dir.resolve("confd/x.toml"), """
                serverAddr = "elsewhere"
                [[proxies]]
                name = "main"
                type = "tcp"
                localPort = 70000
                """);
        assertThat(errors("""
                includes = ["confd/*.toml"]
                [[proxies]]
                name = "main"
                type = "tcp"
                localPort = 3
                """)).containsExactlyInAnyOrder(
                "confd/x.toml:1: \"serverAddr\": an included file holds only [[proxies]] and [[visitors]] (set it in the main file)",
                "confd/x.toml:5: proxies[0].localPort: 70000 (expected: 1-65535)");
    }

    @Test
    void aDuplicateNameAcrossFilesAndAMissingFolderAreErrors() throws Exception {
        Files.createDirectory(dir.resolve("confd"));
        Files.writeString(dir.resolve("confd/x.toml"), "[[proxies]]\nname = \"main\"\ntype = \"tcp\"\nlocalPort = 4\n");
        assertThat(errors("""
                includes = ["confd/*.toml", "nowhere/*.toml"]
                [[proxies]]
                name = "main"
                type = "tcp"
                localPort = 3
                """)).containsExactly(
                "frpc.toml:1: includes[0]: proxy \"main\" in " + dir.resolve("confd/x.toml")
                        + " is already defined (names must be unique)",
                "frpc.toml:1: includes[1]: directory \"nowhere\" does not exist (looked for " + dir.resolve("nowhere") + ")");
    }

    @Test
    void tokenSourceFileIsReadAndTrimmed() throws Exception {
        Files.writeString(dir.resolve("token"), "  s3cret \n\n");
        ClientConfig cfg = load("auth.tokenSource.type = \"file\"\nauth.tokenSource.file.path = \"token\"\n");
        assertThat(cfg.auth.token).isEqualTo("s3cret");
    }

    @Test
    void tokenSourceExecIsRefusedSayingWhyAndTokenTwiceIsAnError() throws Exception {
        assertThat(errors("""
                [auth]
                tokenSource.type = "exec"
                tokenSource.exec.command = "/usr/bin/print-token"
                tokenSource.exec.args = ["--raw"]
                """)).containsExactly("frpc.toml:2: auth.tokenSource.type: \"exec\" is not supported: running a program"
                + " named in the config is a code-execution risk (the client's admin API can rewrite the config;"
                + " frp runs it only with --allow-unsafe=TokenSourceExec); use type = \"file\"");
        Files.writeString(dir.resolve("token"), "t");
        assertThat(errors("""
                [auth]
                token = "x"
                tokenSource.type = "file"
                tokenSource.file.path = "token"
                """)).containsExactly("frpc.toml:3: auth.tokenSource: set together with auth.token (expected: one of them)");
    }

    @Test
    void versionIsIgnoredWireProtocolV1AcceptedV2AndStoreNotSupportedYet() throws Exception {
        assertThat(load("version = \"1\"\ntransport.wireProtocol = \"v1\"\n").transport.wireProtocol).isEqualTo("v1");
        assertThat(errors("transport.wireProtocol = \"v2\"\nstore.path = \"./store.json\"\n")).containsExactly(
                "frpc.toml:1: transport.wireProtocol = \"v2\" is not supported yet (supported: \"v1\")",
                "frpc.toml:2: \"store.path\" is an frp setting that tunnel does not support yet");
    }
}
