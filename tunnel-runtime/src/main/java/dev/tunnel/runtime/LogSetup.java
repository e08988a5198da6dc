package dev.tunnel.runtime;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Locale;

/**
 * Configures logback from the {@code [log]} table, in code, replacing any other logback setup.
 * Lines look like {@code 2025-01-31 12:00:00.123 INFO  [main] ServerMain - listening on 0.0.0.0:7000}.
 */
public final class LogSetup {

    /** The values {@code log.level} accepts. */
    public static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error");
    /** {@code log.to} value for standard output; anything else is a file path. */
    public static final String CONSOLE = "console";
    /** The line format, as a logback pattern; {@link LineLayout} writes it without logback's pattern machinery. */
    static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{0} - %msg%n";

    private LogSetup() {
    }

    /**
     * @param level trace, debug, info, warn or error
     * @param to    "console" or a file path (appended to, created if missing)
     * @throws IllegalArgumentException on an unknown level or an empty target
     */
    public static void apply(String level, String to) {
        if (level == null || !LEVELS.contains(level.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("log.level: \"" + level + "\" (expected one of: " + String.join(", ", LEVELS) + ")");
        }
        if (to == null || to.isBlank()) {
            throw new IllegalArgumentException("log.to: must be \"console\" or a file path");
        }
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();

        LineLayout layout = new LineLayout();
        layout.setContext(context);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();

        OutputStreamAppender<ILoggingEvent> appender = CONSOLE.equals(to) ? new ConsoleAppender<>() : fileAppender(to);
        appender.setContext(context);
        appender.setName(CONSOLE.equals(to) ? "console" : "file");
        appender.setEncoder(encoder);
        appender.start();

        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(level.toUpperCase(Locale.ROOT)));
        root.addAppender(appender);
    }

    private static FileAppender<ILoggingEvent> fileAppender(String path) {
        FileAppender<ILoggingEvent> file = new FileAppender<>();
        file.setFile(path);
        file.setAppend(true);
        return file;
    }
}
