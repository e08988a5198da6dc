package dev.tunnel.runtime;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.TimeBasedRollingPolicy;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Locale;

/**
 * Configures logback from the {@code [log]} table, in code, replacing any other logback setup.
 * Lines look like {@code 2025-01-31 12:00:00.123 INFO  [main] ServerMain - listening on 0.0.0.0:7000}.
 * A log file rolls over at midnight to {@code FILE.yyyy-MM-dd}; rolled files older than
 * {@code log.maxDays} days are deleted (at start-up too). Netty's own loggers ({@code io.netty.*})
 * log at {@code log.nettyLevel} (default warn), so {@code log.level = "debug"} shows the tunnel's
 * debug lines without Netty's start-up internals.
 */
public final class LogSetup {

    /** The values {@code log.level} accepts. */
    public static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error");
    /** {@code log.to} value for standard output; anything else is a file path. */
    public static final String CONSOLE = "console";
    /** {@code log.maxDays} when unset or 0, as in frp. */
    public static final int DEFAULT_MAX_DAYS = 3;
    /** {@code log.nettyLevel} when unset: Netty's internals say nothing below a warning. */
    public static final String DEFAULT_NETTY_LEVEL = "warn";
    /** The logger every Netty class logs through is named below this. */
    static final String NETTY_LOGGERS = "io.netty";
    /** The line format, as a logback pattern; {@link LineLayout} writes it without logback's pattern machinery. */
    static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{0} - %msg%n";

    private LogSetup() {
    }

    /** {@link #apply(String, String, int)} keeping {@value #DEFAULT_MAX_DAYS} days of rolled files. */
    public static void apply(String level, String to) {
        apply(level, to, DEFAULT_MAX_DAYS);
    }

    /**
     * What a command logs before (or without) reading a config: info and up on the console,
     * Netty at warn. Without it logback's own default prints every DEBUG line, Netty's included,
     * above what {@code certs} or {@code verify} print.
     */
    public static void defaults() {
        apply("info", CONSOLE);
    }

    /** {@link #apply(String, String, int, String)} with Netty at {@value #DEFAULT_NETTY_LEVEL}. */
    public static void apply(String level, String to, int maxDays) {
        apply(level, to, maxDays, DEFAULT_NETTY_LEVEL);
    }

    /**
     * @param level   trace, debug, info, warn or error
     * @param to      "console" or a file path (appended to, created if missing)
     * @param maxDays days of rolled files kept; 0 = {@value #DEFAULT_MAX_DAYS}
     * @param nettyLevel the level of Netty's own loggers ({@code io.netty.*})
     * @throws IllegalArgumentException on an unknown level, an empty target or a negative maxDays
     */
    public static void apply(String level, String to, int maxDays, String nettyLevel) {
        checkLevel("log.level", level);
        checkLevel("log.nettyLevel", nettyLevel);
        if (to == null || to.isBlank()) {
            throw new IllegalArgumentException("log.to: must be \"console\" or a file path");
        }
        if (maxDays < 0) {
            throw new IllegalArgumentException("log.maxDays: " + maxDays + " (expected: 0 or more)");
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

        OutputStreamAppender<ILoggingEvent> appender = CONSOLE.equals(to) ? new ConsoleAppender<>()
                : fileAppender(context, to, maxDays == 0 ? DEFAULT_MAX_DAYS : maxDays);
        appender.setContext(context);
        appender.setName(CONSOLE.equals(to) ? "console" : "file");
        appender.setEncoder(encoder);
        appender.start();

        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(level.toUpperCase(Locale.ROOT)));
        root.addAppender(appender);
        context.getLogger(NETTY_LOGGERS).setLevel(Level.toLevel(nettyLevel.toUpperCase(Locale.ROOT)));
    }

    /** Turns the logger named {@code name} off (false) or back to the root's level (true). */
    public static void enable(String name, boolean on) {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.getLogger(name).setLevel(on ? null : Level.OFF);
    }

    private static void checkLevel(String key, String level) {
        if (level == null || !LEVELS.contains(level.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException(key + ": \"" + level + "\" (expected one of: " + String.join(", ", LEVELS) + ")");
        }
    }

    private static RollingFileAppender<ILoggingEvent> fileAppender(LoggerContext context, String path, int maxDays) {
        RollingFileAppender<ILoggingEvent> file = new RollingFileAppender<>();
        file.setContext(context);
        file.setFile(path);
        file.setAppend(true);
        TimeBasedRollingPolicy<ILoggingEvent> daily = new TimeBasedRollingPolicy<>();
        daily.setContext(context);
        daily.setParent(file);
        daily.setFileNamePattern(path.replace("%", "\\%") + ".%d{yyyy-MM-dd}");
        daily.setMaxHistory(maxDays);
        daily.setCleanHistoryOnStart(true);
        daily.start();
        file.setRollingPolicy(daily);
        return file;
    }
}
