package dev.tunnel.runtime;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an action on SIGHUP ({@code systemctl reload}, {@code kill -HUP}), the Unix way to make a
 * service re-read its config. The JDK has no public API for signals; {@code sun.misc.Signal} (in
 * the {@code jdk.unsupported} module, there for exactly this) is reached by reflection so the
 * build does not warn about an internal API. The action runs on the JVM's signal thread: it
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
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Constructor<?> newSignal = signalClass.getConstructor(String.class);
            Object handler = Proxy.newProxyInstance(Hangup.class.getClassLoader(), new Class<?>[] {handlerClass},
                    (proxy, method, args) -> {
                        if (method.getName().equals("handle")) {
                            action.run();
                            return null;
                        }
                        if (method.getName().equals("toString")) {
                            return "SIGHUP handler";
                        }
                        if (method.getName().equals("hashCode")) {
                            return System.identityHashCode(proxy);
                        }
                        return method.getName().equals("equals") ? proxy == args[0] : null;
                    });
            Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
            Object previous = handle.invoke(null, newSignal.newInstance("HUP"), handler);
            if (previous == handlerClass.getField("SIG_IGN").get(null)) {
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
