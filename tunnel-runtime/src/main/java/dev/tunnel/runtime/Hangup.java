package dev.tunnel.runtime;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an action on SIGHUP ({@code systemctl reload}, {@code kill -HUP}), the Unix way to make a
 * service re-read its config ({@link Signals}). The action runs on the JVM's signal thread: it
 * should hand the work off and return. A process started with SIGHUP ignored ({@code nohup})
 * keeps it ignored: the JVM does not install handlers for such signals.
 */
public final class Hangup {
    private static final Logger log = LoggerFactory.getLogger(Hangup.class);

    private Hangup() {
    }

    /** Installs {@code action} for SIGHUP; returns false (and logs why) where signals are not available. */
    public static boolean onHangup(Runnable action) {
        try {
            if (Signals.handle("HUP", action) == Signals.Previous.IGNORED) {
                // the JVM leaves a signal its parent ignored (nohup) ignored, and says so
                log.warn("SIGHUP is ignored by this process (started under nohup?), so it cannot trigger a"
                        + " reload; use tunnel-client reload");
                return false;
            }
            return true;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            log.warn("SIGHUP cannot trigger a reload here ({}); use tunnel-client reload", e.toString());
            return false;
        }
    }
}
