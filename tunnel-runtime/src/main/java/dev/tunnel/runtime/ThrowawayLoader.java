package dev.tunnel.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A class loader for code needed only at start-up (the TOML parser, BouncyCastle for PEM files and
 * the self-signed certificate): its classes are unloaded once nothing refers to them and a full
 * collection runs ({@link Footprint#afterStartup()}), and the JVM gives their metaspace back.
 * Loaded by the application class loader, Jackson and BouncyCastle would keep about 750 classes
 * (5-6 MB of class metadata and symbols) for the life of the process.
 *
 * <p>The loader defines the classes it owns itself, from the class files the application class
 * loader sees, and delegates everything else (the JDK, Netty, the interface the caller uses) to
 * its parent. Code it owns must reach the parent's classes through public members only: a class
 * of the same package name defined by another loader is another runtime package.
 *
 * <p>Rules for callers: refer to the isolated code only through an interface of the parent
 * ({@link #instance}); keep no reference to the instance after start-up; run the calls on
 * {@link #onThread} so that thread-locals the isolated code sets die with that thread. The
 * instance is cached through a weak reference only, so several loads in a row (tests) share it and
 * the first full collection after start-up drops it.
 */
public final class ThrowawayLoader extends ClassLoader {

    static {
        registerAsParallelCapable();
    }

    private static final Map<String, WeakReference<Object>> CACHE = new HashMap<>();

    private final List<String> owned;

    private ThrowawayLoader(ClassLoader parent, String name, List<String> owned) {
        super(name, parent);
        this.owned = owned;
    }

    /**
     * An instance of {@code implementation} (public, with a public no-argument constructor),
     * defined in a throwaway loader that owns {@code owned}: entries ending in {@code .} are
     * packages (and their subpackages), others are classes (and their nested classes). The
     * implementation itself must be among them.
     */
    public static <T> T instance(Class<T> api, String implementation, String... owned) {
        synchronized (CACHE) {
            WeakReference<Object> cached = CACHE.get(implementation);
            Object instance = cached == null ? null : cached.get();
            if (instance == null) {
                ThrowawayLoader loader = new ThrowawayLoader(api.getClassLoader(), "throwaway:" + implementation,
                        List.of(owned));
                try {
                    instance = loader.loadClass(implementation).getConstructor().newInstance();
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("cannot load " + implementation, e);
                }
                CACHE.put(implementation, new WeakReference<>(instance));
            }
            return api.cast(instance);
        }
    }

    /** A call that may throw one checked exception type. */
    @FunctionalInterface
    public interface Call<R, E extends Exception> {
        R run() throws E;
    }

    /** Runs {@code call} on a new thread and waits for it; its result, or what it threw. */
    public static <R, E extends Exception> R onThread(String threadName, Call<R, E> call) throws E {
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Thread thread = new Thread(() -> {
            try {
                result[0] = call.run();
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, threadName);
        thread.start();
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Throwable e = failure[0];
        if (e == null) {
            @SuppressWarnings("unchecked")
            R r = (R) result[0];
            return r;
        }
        if (e instanceof RuntimeException r) {
            throw r;
        }
        if (e instanceof Error err) {
            throw err;
        }
        @SuppressWarnings("unchecked")
        E checked = (E) e; // Call.run throws only E besides unchecked ones
        throw checked;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!owns(name)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                c = findClass(name);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        if (!owns(name)) {
            throw new ClassNotFoundException(name);
        }
        try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
            if (in == null) {
                throw new ClassNotFoundException(name);
            }
            byte[] bytes = in.readAllBytes();
            return defineClass(name, bytes, 0, bytes.length);
        } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
        }
    }

    private boolean owns(String name) {
        for (String entry : owned) {
            if (entry.endsWith(".") ? name.startsWith(entry) : name.equals(entry) || name.startsWith(entry + "$")) {
                return true;
            }
        }
        return false;
    }
}
