package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A string a peer chose cannot forge a log line, nor make one long. */
@Timeout(10)
class LogTextTest {

    @Test
    void controlCharactersBecomeQuestionMarks() {
        assertThat(LogText.printable("host\r\n2026 WARN forged\u0000\u001b[31m"))
                .isEqualTo("host??2026 WARN forged??[31m");
    }

    @Test
    void aLongStringIsCutAt64Characters() {
        String exactly64 = "a".repeat(64);
        assertThat(LogText.printable(exactly64)).isEqualTo(exactly64);
        assertThat(LogText.printable(exactly64 + "b")).isEqualTo(exactly64 + "...");
    }

    @Test
    void printableTextIsKeptAsItIs() {
        assertThat(LogText.printable("frpc 0.61 on café-01 ✓")).isEqualTo("frpc 0.61 on café-01 ✓");
    }
}
