package dev.tunnel.protocol.testing;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Logback appender (wired in logback-test.xml on Netty's ResourceLeakDetector logger) that
 * keeps every leak report so {@link LeakGuard} can fail the test that caused it.
 */
public final class LeakRecordingAppender extends AppenderBase<ILoggingEvent> {
    static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    @Override
    protected void append(ILoggingEvent event) {
        if (event.getFormattedMessage().contains("LEAK")) {
            LEAKS.add(event.getFormattedMessage());
        }
    }
}
