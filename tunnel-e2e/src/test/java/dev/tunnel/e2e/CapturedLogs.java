package dev.tunnel.e2e;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.Layout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Logback appender (the root appender in this module's logback-test.xml) that keeps the last
 * {@value #MAX_LINES} log lines in memory instead of printing them. {@link TunnelExtension}
 * clears it before each test and prints it only when the test failed, so a green run is quiet
 * and a red one shows what the server and the client said.
 */
public final class CapturedLogs extends AppenderBase<ILoggingEvent> {
    private static final int MAX_LINES = 5_000;
    private static final ArrayDeque<String> LINES = new ArrayDeque<>();

    private Layout<ILoggingEvent> layout;

    public void setLayout(Layout<ILoggingEvent> layout) {
        this.layout = layout;
    }

    @Override
    protected void append(ILoggingEvent event) {
        String line = layout != null ? layout.doLayout(event) : event.getFormattedMessage() + System.lineSeparator();
        synchronized (LINES) {
            if (LINES.size() == MAX_LINES) {
                LINES.removeFirst();
            }
            LINES.addLast(line);
        }
    }

    static void clear() {
        synchronized (LINES) {
            LINES.clear();
        }
    }

    static List<String> snapshot() {
        synchronized (LINES) {
            return new ArrayList<>(LINES);
        }
    }
}
