package dev.tunnel.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(10)
class KeyLocatorTest {

    private static final String TEXT = """
            # comment with key = 1
            serverAddr = "a.b"            # 2
            transport.tls.enable = true   # 3
            description = '''
            multi
            line = 1
            '''
            allowPorts = [                # 8
              { start = 6000, end = 7000 },
              { single = 3389 },          # 10
            ]
            [transport]                   # 12
            tcpMux = true
            "quoted.key" = 1              # 14
            [[proxies]]                   # 15
            name = "ssh"
            [[proxies]]                   # 17
            name = "web"
            plugin = { type = "static_file", localPath = "./docs" }   # 19
            [proxies.transport]           # 20
            useEncryption = true
            [[proxies]]
            name = "x"                    # 23
            """;

    private final KeyLocator locator = KeyLocator.scan(TEXT);

    @Test
    void findsPlainAndDottedKeys() {
        assertThat(locator.lineOf("serverAddr")).isEqualTo(2);
        assertThat(locator.lineOf("transport.tls.enable")).isEqualTo(3);
        assertThat(locator.lineOf("transport.tls")).isEqualTo(3);
    }

    @Test
    void skipsMultiLineStrings() {
        assertThat(locator.lineOf("description")).isEqualTo(4);
        assertThat(locator.lineOf("line")).isZero();
    }

    @Test
    void findsInlineTablesInArrays() {
        assertThat(locator.lineOf("allowPorts")).isEqualTo(8);
        assertThat(locator.lineOf("allowPorts[0].end")).isEqualTo(9);
        assertThat(locator.lineOf("allowPorts[1].single")).isEqualTo(10);
        assertThat(locator.lineOf("allowPorts[1]")).isEqualTo(10);
    }

    @Test
    void findsKeysInTablesAndQuotedKeys() {
        assertThat(locator.lineOf("transport.tcpMux")).isEqualTo(13);
        assertThat(locator.lineOf("transport.quoted.key")).isEqualTo(14);
    }

    @Test
    void numbersArraysOfTablesFromZero() {
        assertThat(locator.lineOf("proxies[0].name")).isEqualTo(16);
        assertThat(locator.lineOf("proxies[1].name")).isEqualTo(18);
        assertThat(locator.lineOf("proxies[1].plugin.localPath")).isEqualTo(19);
        assertThat(locator.lineOf("proxies[1].transport.useEncryption")).isEqualTo(21);
        assertThat(locator.lineOf("proxies[2].name")).isEqualTo(23);
        assertThat(locator.lineOf("proxies")).isEqualTo(15);
    }

    @Test
    void unknownPathFallsBackToEnclosingTable() {
        assertThat(locator.lineOf("proxies[1].localPort")).isEqualTo(17);
        assertThat(locator.lineOf("transport.heartbeatTimeout")).isEqualTo(3);
        assertThat(locator.lineOf("nothing.here")).isZero();
        assertThat(locator.lineOf("")).isZero();
    }

    @Test
    void survivesGarbage() {
        KeyLocator broken = KeyLocator.scan("[[a\n= = =\n\"unterminated\nb = [1, {c = \n");
        assertThat(broken.lineOf("a[0].b")).isEqualTo(4);
    }
}
