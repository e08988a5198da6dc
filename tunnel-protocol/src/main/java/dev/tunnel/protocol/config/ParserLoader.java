package dev.tunnel.protocol.config;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;

/**
 * Runs the TOML parser (Jackson: about 560 classes, 4-5 MB of class metadata and symbols that
 * would otherwise stay for the life of the process) in a class loader of its own. Nothing outside
 * it refers to a Jackson class, so once the config is read and a full collection runs
 * ({@link Footprint#afterStartup()}), the JVM unloads Jackson and gives its metaspace back.
 *
 * <p>The loader defines {@code com.fasterxml.jackson.*} and {@code dev.tunnel.protocol.config.jackson.*}
 * itself, from the same class files the application class loader sees, and delegates everything
 * else (the config classes, {@link ConfigErrors}, the JDK) to its parent. Parsing runs on a
 * short-lived thread so that Jackson's thread-local buffer pools cannot keep the loader alive
 * through a long-lived thread. The binder is kept through a weak reference only: loads in a row
 * (tests) reuse it, and the first full collection after start-up drops it.
 */
final class ParserLoader extends ClassLoader {

    private static final String BINDER = "dev.tunnel.protocol.config.jackson.JacksonBinder";
    private static final String[] OWN = {"com.fasterxml.jackson.", "dev.tunnel.protocol.config.jackson."};

    private static WeakReference<TomlBinder> cached = new WeakReference<>(null);

    static {
        registerAsParallelCapable();
    }

    private ParserLoader(ClassLoader parent) {
        super("tunnel-config-parser", parent);
    }

    /** {@link TomlBinder#bind}, on a thread of its own, with the isolated Jackson. */
    static Object bind(String toml, Class<?> type, UnsupportedKeys unsupported, EnvTemplate env, ConfigErrors errors,
                       KeyLocator locator) throws ConfigException {
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Thread thread = new Thread(() -> {
            try {
                result[0] = binder().bind(toml, type, unsupported, env, errors, locator);
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, "config-parser");
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
        if (e instanceof ConfigException c) {
            throw c;
        } else if (e instanceof RuntimeException r) {
            throw r;
        } else if (e instanceof Error err) {
            throw err;
        } else if (e != null) {
            throw new IllegalStateException("config parser failed", e);
        }
        return result[0];
    }

    private static synchronized TomlBinder binder() throws ReflectiveOperationException {
        TomlBinder binder = cached.get();
        if (binder == null) {
            ClassLoader loader = new ParserLoader(ParserLoader.class.getClassLoader());
            binder = (TomlBinder) loader.loadClass(BINDER).getConstructor().newInstance();
            cached = new WeakReference<>(binder);
        }
        return binder;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!own(name)) {
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
        if (!own(name)) {
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

    private static boolean own(String name) {
        for (String prefix : OWN) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
