package dev.tunnel.runtime;

import dev.tunnel.config.ValueChecks;
import java.util.List;

/**
 * The {@code [log]} table, as frps.toml and frpc.toml spell it; each config class holds one.
 * Defaults are frp's.
 */
public class LogConfig {
    /** trace, debug, info, warn or error. */
    public String level = "info";
    /** "console" or a file path; a file rolls over daily to FILE.yyyy-MM-dd. */
    public String to = "console";
    /** Days of rolled log files kept; 0 = 3 (frp's default). */
    public int maxDays = 0;
    /** The level of Netty's own loggers (a tunnel extension): trace, debug, info, warn or error. */
    public String nettyLevel = LogSetup.DEFAULT_NETTY_LEVEL;
    /** Accepted for frp's files: the tunnel never colors its lines. */
    public boolean disablePrintColor = false;

    /** Checks the table; {@code prefix} is its key ("log"). */
    public void validate(String prefix, ValueChecks checks) {
        checks.oneOf(prefix + ".level", level, LogSetup.LEVELS, List.of());
        checks.oneOf(prefix + ".nettyLevel", nettyLevel, LogSetup.LEVELS, List.of());
        checks.notBlank(prefix + ".to", to);
        checks.range(prefix + ".maxDays", maxDays, 0, 3650);
    }

    /** Sends the process's logging where this table says ({@link LogSetup#apply}). */
    public void apply() {
        LogSetup.apply(level, to, maxDays, nettyLevel);
    }
}
