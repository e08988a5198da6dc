package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.config.ConfigError;
import dev.tunnel.config.ConfigException;
import dev.tunnel.server.config.ServerConfig;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * frp's own {@code conf/frps_full_example.toml} and {@code conf/frpc_full_example.toml} (copies in
 * {@code src/test/resources/frp/}, with their YAML and JSON forms): what {@code verify} refuses in
 * them is only what tunnel does not do (kcp, QUIC, OIDC, xtcp, virtual_net) and files the
 * examples name that do not exist here; the three formats say the same; and
 * {@code docs/config.md} has a row for every key the two files set or show commented out.
 */
@Timeout(60)
class FrpFullExamplesTest {
    private static final Path DOCS = Path.of("").toAbsolutePath().getParent().resolve("docs/config.md");
    /** A table header ({@code [auth]}, {@code [[proxies]]}) and a key line, set or commented out. */
    private static final Pattern TABLE = Pattern.compile("^\\s*\\[\\[?([A-Za-z][\\w.]*)]]?\\s*$");
    private static final Pattern KEY = Pattern.compile("^\\s*(?:#\\s*)?([A-Za-z][\\w.\\-/]*|\"[^\"]+\")\\s*=\\s*\\S");
    /** Tables whose keys the user names: one row ({@code metadatas.*}) stands for them all. */
    private static final Set<String> USER_NAMED = Set.of("metadatas", "annotations", "set", "additionalEndpointParams");

    @Test
    void theServerExampleIsRefusedOnlyForKcpOidcAndXtcp() throws Exception {
        assertThat(refusedKeys(server("toml"))).containsExactlyInAnyOrder(
                "kcpBindPort",
                "auth.oidc.issuer", "auth.oidc.audience", "auth.oidc.skipExpiryCheck", "auth.oidc.skipIssuerCheck",
                "natholeAnalysisDataReserveHours"); // xtcp's NAT hole statistics
    }

    @Test
    void theClientExampleIsRefusedOnlyForXtcpVirtualNetAndFilesThatDoNotExistHere() throws Exception {
        assertThat(refusedKeys(client("toml"))).containsExactlyInAnyOrder(
                // static_file's /var/www/blog, the TLS plugins' ./server.crt and ./server.key
                "proxies[9].plugin.localPath",
                "proxies[10].plugin.crtPath", "proxies[10].plugin.keyPath",
                "proxies[11].plugin.crtPath", "proxies[11].plugin.keyPath",
                "proxies[14].plugin.crtPath", "proxies[14].plugin.keyPath",
                // the xtcp proxy and visitor
                "proxies[16].type", "proxies[16].natTraversal.disableAssistedAddrs",
                "visitors[1].type", "visitors[1].keepTunnelOpen", "visitors[1].maxRetriesAnHour",
                "visitors[1].minRetryInterval", "visitors[1].natTraversal.disableAssistedAddrs",
                // virtual_net: its proxy plugin, and its visitor (no listener, a plugin)
                "proxies[17].plugin.type",
                "visitors[2].bindPort", "visitors[2].plugin.type", "visitors[2].plugin.destinationIP");
    }

    @ParameterizedTest
    @ValueSource(strings = {"yaml", "json"})
    void theYamlAndJsonFormsSayWhatTheTomlSays(String format) throws Exception {
        assertThat(withoutFileAndLine(server(format))).isEqualTo(withoutFileAndLine(server("toml")));
        assertThat(withoutFileAndLine(client(format))).isEqualTo(withoutFileAndLine(client("toml")));
    }

    @Test
    void docsConfigMdHasARowForEveryKeyOfBothExamples() throws Exception {
        String docs = Files.readString(DOCS);
        int frpc = docs.indexOf("\n### frpc.toml\n");
        int frps = docs.indexOf("\n### frps.toml\n");
        assertThat(frps).as("docs/config.md has a ### frps.toml table").isPositive();
        assertThat(frpc).as("and a ### frpc.toml table after it").isGreaterThan(frps);
        String serverRows = docs.substring(frps, frpc);
        String clientRows = docs.substring(frpc);
        List<String> missing = new ArrayList<>();
        for (String key : keys(resource("frps_full_example.toml"))) {
            if (!hasRow(serverRows, key)) {
                missing.add("frps.toml " + key);
            }
        }
        for (String key : keys(resource("frpc_full_example.toml"))) {
            if (!hasRow(clientRows, key)) {
                missing.add("frpc.toml " + key);
            }
        }
        assertThat(missing).as("keys without a \"| `key` | supported / differs / not supported |\" row").isEmpty();
        assertThat(keys(resource("frpc_full_example.toml"))).as("the extraction sees commented-out keys and tables")
                .contains("auth.oidc.clientID", "proxies.plugin.crtPath", "proxies.metadatas.*", "visitors.fallbackTo");
    }

    private static boolean hasRow(String rows, String key) {
        return Pattern.compile("^\\| `" + Pattern.quote(key) + "` \\| (supported|differs|not supported) \\|",
                Pattern.MULTILINE).matcher(rows).find();
    }

    /** Every key the file sets or shows commented out, under its table, in order of appearance. */
    static Set<String> keys(Path file) throws IOException {
        Set<String> keys = new LinkedHashSet<>();
        String table = "";
        for (String line : Files.readAllLines(file)) {
            Matcher t = TABLE.matcher(line);
            if (t.matches()) {
                table = t.group(1) + ".";
                continue;
            }
            Matcher k = KEY.matcher(line);
            if (!k.find()) {
                continue;
            }
            List<String> segments = new ArrayList<>(List.of((table + k.group(1)).split("\\.")));
            for (int i = 0; i < segments.size(); i++) {
                if (USER_NAMED.contains(segments.get(i))) {
                    segments = new ArrayList<>(segments.subList(0, i + 1));
                    segments.add("*");
                    break;
                }
            }
            keys.add(String.join(".", segments));
        }
        return keys;
    }

    private static List<ConfigError> server(String format) throws Exception {
        Path file = resource("frps_full_example." + format);
        return catchThrowableOfType(ConfigException.class, () -> ServerConfig.load(file)).errors();
    }

    private static List<ConfigError> client(String format) throws Exception {
        Path file = resource("frpc_full_example." + format);
        return catchThrowableOfType(ConfigException.class, () -> ClientConfig.load(file)).errors();
    }

    private static List<String> refusedKeys(List<ConfigError> errors) {
        return errors.stream().map(ConfigError::keyPath).toList();
    }

    /** The errors as a user reads them, less the file name and line, which differ by format. */
    private static Set<String> withoutFileAndLine(List<ConfigError> errors) {
        return errors.stream().map(e -> new ConfigError("f", 0, e.keyPath(), e.message()).toString())
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(FrpFullExamplesTest.class.getResource("/frp/" + name).toURI());
    }
}
