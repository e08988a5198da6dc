package dev.tunnel.runtime;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Installs a handler for a Unix signal. The JDK has no public API for signals;
 * {@code sun.misc.Signal} (in the {@code jdk.unsupported} module, there for exactly this) is
 * reached by reflection so the build does not warn about an internal API. The action runs on a
 * thread the JVM starts for the signal.
 */
final class Signals {

    /** What {@link #handle} found in place before it. */
    enum Previous { HANDLED, IGNORED }

    private Signals() {
    }

    /**
     * Runs {@code action} on signal {@code name} ("HUP", "TERM") from now on, replacing the JVM's
     * own handling (for TERM: shutdown hooks, then exit status 143).
     *
     * @throws ReflectiveOperationException where {@code sun.misc.Signal} is not available
     * @throws IllegalArgumentException     when the JVM reserves the signal
     */
    static Previous handle(String name, Runnable action) throws ReflectiveOperationException {
        Class<?> signalClass = Class.forName("sun.misc.Signal");
        Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
        Constructor<?> newSignal = signalClass.getConstructor(String.class);
        Object handler = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {handlerClass},
                (proxy, method, args) -> {
                    if (method.getName().equals("handle")) {
                        action.run();
                        return null;
                    }
                    if (method.getName().equals("toString")) {
                        return "SIG" + name + " handler";
                    }
                    if (method.getName().equals("hashCode")) {
                        return System.identityHashCode(proxy);
                    }
                    return method.getName().equals("equals") ? proxy == args[0] : null;
                });
        Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
        Object previous = handle.invoke(null, newSignal.newInstance(name), handler);
        return previous == handlerClass.getField("SIG_IGN").get(null) ? Previous.IGNORED : Previous.HANDLED;
    }
}
