package dev.tunnel.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Options: the typed reading a proxy type does, and the errors a bad peer value gets. */
@Timeout(10)
class OptionsTest {

    @Test
    void listsAndMapsUseFrpKeyPaths() {
        Options options = Options.builder()
                .putList("customDomains", List.of("a.example", "b.example"))
                .putMap("requestHeaders.set", Map.of("X-From", "tunnel"))
                .put("remotePort", 6000).put("useEncryption", true).build();
        assertThat(options.asMap()).containsKeys("customDomains[0]", "customDomains[1]", "requestHeaders.set.X-From");
        assertThat(options.list("customDomains")).containsExactly("a.example", "b.example");
        assertThat(options.map("requestHeaders.set")).containsExactly(Map.entry("X-From", "tunnel"));
        assertThat(options.integer("remotePort", 0)).isEqualTo(6000);
        assertThat(options.bool("useEncryption", false)).isTrue();
        assertThat(options.list("locations")).isEmpty();
        assertThat(options.integer("bandwidthLimit", -1)).as("absent: the fallback").isEqualTo(-1);
    }

    @Test
    void aBadValueFromThePeerNamesTheKeyAndWhatIsExpected() {
        Options options = Options.builder().put("remotePort", "80a").put("useEncryption", "yes").build();
        assertThatThrownBy(() -> options.integer("remotePort", 0)).isInstanceOf(ProtocolException.class)
                .hasMessage("option remotePort = \"80a\" (expected: an integer)");
        assertThatThrownBy(() -> options.bool("useEncryption", false)).isInstanceOf(ProtocolException.class)
                .hasMessage("option useEncryption = \"yes\" (expected: true or false)");
    }

    @Test
    void keysAreBounded() {
        assertThatThrownBy(() -> Options.of("", "v")).hasMessageContaining("expected: 1-256 characters");
        assertThatThrownBy(() -> Options.of("k".repeat(Options.MAX_KEY + 1), "v"))
                .hasMessageContaining("expected: 1-256 characters");
        Options.Builder many = Options.builder();
        for (int i = 0; i < Options.MAX_ENTRIES; i++) {
            many.put("k" + i, "v");
        }
        assertThatThrownBy(() -> many.put("one-more", "v")).hasMessageContaining("more than 512 options");
    }

    @Test
    void missingCapabilitiesKeepTheOrderOfWhatIsNeeded() {
        assertThat(Capabilities.missing(List.of("options", "proxy.http", "proxy.tcp"), java.util.Set.of("options")))
                .containsExactly("proxy.http", "proxy.tcp");
        assertThat(Capabilities.proxyType("udp")).isEqualTo("proxy.udp");
    }
}
