package dev.tunnel.runtime;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.util.CachingDateFormatter;

/**
 * Formats a log line as the pattern {@value LogSetup#PATTERN} would, in code. Logback's
 * {@code PatternLayout} loads its pattern parser and every converter it knows (about 100 classes
 * and 66 lambdas, some 1.5 MB of class metadata kept for the life of the process) to print five
 * fields.
 */
final class LineLayout extends LayoutBase<ILoggingEvent> {

    private final CachingDateFormatter dates = new CachingDateFormatter("yyyy-MM-dd HH:mm:ss.SSS");

    @Override
    public String doLayout(ILoggingEvent event) {
        String level = event.getLevel().toString();
        String logger = event.getLoggerName();
        StringBuilder line = new StringBuilder(128)
                .append(dates.format(event.getTimeStamp())).append(' ')
                .append(level);
        for (int i = level.length(); i < 5; i++) {
            line.append(' ');
        }
        line.append(" [").append(event.getThreadName()).append("] ")
                .append(logger, logger.lastIndexOf('.') + 1, logger.length())
                .append(" - ").append(event.getFormattedMessage()).append(CoreConstants.LINE_SEPARATOR);
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) {
            line.append(ThrowableProxyUtil.asString(thrown));
        }
        return line.toString();
    }
}
