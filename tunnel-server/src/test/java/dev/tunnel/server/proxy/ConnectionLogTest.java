package dev.tunnel.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tunnel.runtime.LogSetup;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

@Timeout(10)
class ConnectionLogTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(ConnectionLog.LOGGER);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.INFO);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
        logger.setLevel(null);
    }

    @Test
    void closedConnectionLogsProxyVisitorBytesAndDuration() {
        EmbeddedChannel conn = new EmbeddedChannel();
        ConnectionLog.carries(conn, "alice.web");
        conn.writeInbound(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII));
        conn.writeOutbound(Unpooled.copiedBuffer("goodbye", StandardCharsets.US_ASCII));
        conn.finishAndReleaseAll();
        assertThat(messages()).singleElement().asString()
                .matches("proxy \\[alice\\.web] connection from embedded closed: 5 bytes in, 7 bytes out, \\d+\\.\\d{3} s");
    }

    @Test
    void connectionOfNoProxyLogsNothing() {
        EmbeddedChannel conn = new EmbeddedChannel();
        ConnectionLog.install(conn); // a vhost connection that never routed
        conn.finishAndReleaseAll();
        assertThat(messages()).isEmpty();
    }

    @Test
    void logConnectionsFalseInstallsNoHandler() {
        LogSetup.enable(ConnectionLog.LOGGER, false);
        EmbeddedChannel conn = new EmbeddedChannel();
        ConnectionLog.carries(conn, "web");
        assertThat(conn.pipeline().get(ConnectionLog.NAME)).isNull();
        conn.finishAndReleaseAll();
        assertThat(messages()).isEmpty();
    }

    private List<String> messages() {
        return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
}
