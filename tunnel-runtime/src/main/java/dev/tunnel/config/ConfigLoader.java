package dev.tunnel.config;

import dev.tunnel.runtime.ThrowawayLoader;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
/**
 * Reads a TOML, YAML or JSON file into a config class: parse, check keys and types against the
 * class, bind, validate values, and throw one {@link ConfigException} listing every error.
 *
 * <p>The format follows the file name as in frp ({@link ConfigFormat}); the keys, checks and
 * errors are the same in all three. A legacy frp INI file is refused with a pointer to the
 * conversion ({@link LegacyIni}). A syntax error stops at once (the parser cannot go on),
 * reported with its line. All other errors are collected: unknown keys, frp keys not supported
 * yet, wrong types, bad values. Defaults are whatever the config class's fields start with. The
 * parser (Jackson, in {@code config.jackson}) runs in a {@link ThrowawayLoader}, so that its
 * classes are unloaded after start-up, unless a reloading process holds it ({@link #holdParser()}).
 *
 * <h3>Limits</h3>
 * Whatever the source (a file, a reload, {@code PUT /api/config}), a config of more than
 * {@value #MAX_BYTES} bytes or nested deeper than {@value KeyLocator#MAX_DEPTH} levels is refused
 * with one error before the parser sees it, so a hostile or broken file costs neither the
 * memory to hold it nor a stack to parse it.
 *
 * @param <T> the config class: public mutable fields, a no-argument constructor, one nested class per table
 */
public final class ConfigLoader<T> {

    /** The largest config accepted, in bytes (1 MiB: real ones are a few KiB). */
    public static final int MAX_BYTES = 1024 * 1024;

    private static final String JACKSON_SIDE = "dev.tunnel.config.jackson.";
    private static final String BINDER = JACKSON_SIDE + "JacksonBinder";

    private final Class<T> type;
    private final UnsupportedKeys unsupported;
    private final ConfigValidator<T> validator;

    public ConfigLoader(Class<T> type, UnsupportedKeys unsupported, ConfigValidator<T> validator) {
        this.type = type;
        this.unsupported = unsupported;
        this.validator = validator;
    }

    /** Loads {@code file} with the process environment for {@code {{ .Envs.NAME }}}. */
    public T load(Path file) throws ConfigException {
        return parse(read(file), file.toString(), System::getenv);
    }

    /**
     * Parses config text, in the format {@link ConfigFormat#of} gives for its name.
     *
     * @param text              the file content
     * @param fileNameForErrors how errors name the file; its extension picks the format
     * @param env               environment lookup for templates, null for unset variables
     */
    public T parse(String text, String fileNameForErrors, Function<String, String> env) throws ConfigException {
        long size = utf8Length(text);
        if (size > MAX_BYTES) {
            throw tooLarge(fileNameForErrors, size);
        }
        if (LegacyIni.is(fileNameForErrors, text)) {
            throw single(fileNameForErrors, 0, LegacyIni.MESSAGE);
        }
        ConfigFormat format = ConfigFormat.of(fileNameForErrors);
        EnvTemplate templates = new EnvTemplate(env);
        if (format != ConfigFormat.TOML) {
            KeyLineMap lines = new KeyLineMap();
            ConfigErrors errors = new ConfigErrors(fileNameForErrors, lines);
            ConfigBinder binder = binder();
            return validated(ThrowawayLoader.onThread("config-parser",
                    () -> binder.bindTree(text, format, type, unsupported, templates, errors, lines)), errors);
        }
        return parseToml(text, fileNameForErrors, templates);
    }

    private T parseToml(String toml, String fileNameForErrors, EnvTemplate templates) throws ConfigException {
        KeyLocator locator = KeyLocator.scan(toml);
        KeyLocator.Nesting deep = locator.tooDeep();
        if (deep != null) {
            throw single(fileNameForErrors, deep.line(), "values nested " + deep.depth() + " levels deep, over the limit of "
                    + KeyLocator.MAX_DEPTH + " (each key segment, array and inline table is one level)");
        }
        ConfigErrors errors = new ConfigErrors(fileNameForErrors, locator);
        ConfigBinder binder = binder();
        return validated(ThrowawayLoader.onThread("config-parser",
                () -> binder.bindToml(toml, type, unsupported, templates, errors, locator)), errors);
    }

    private T validated(Object bound, ConfigErrors errors) throws ConfigException {
        T config = type.cast(bound);
        validator.validate(config, errors);
        errors.throwIfAny();
        return config;
    }

    /**
     * Keeps the parser (its class loader, Jackson's classes and the binder's caches) loaded while
     * the returned hold is reachable, for a process that reloads its file: without it, the first
     * full collection after start-up unloads the parser and each reload loads and initializes
     * Jackson again (most of a second on a small machine). A process that never reloads takes no
     * hold and gets the metaspace back.
     */
    public static ParserHold holdParser() {
        return new ParserHold(binder());
    }

    /** See {@link #holdParser()}: reachable means the parser stays. */
    public static final class ParserHold {
        @SuppressWarnings({"unused", "FieldCanBeLocal"}) // the strong reference is the point
        private final ConfigBinder binder;

        private ParserHold(ConfigBinder binder) {
            this.binder = binder;
        }
    }

    private static ConfigBinder binder() {
        return ThrowawayLoader.instance(ConfigBinder.class, BINDER, "com.fasterxml.jackson.", "org.yaml.snakeyaml.",
                JACKSON_SIDE);
    }

    private static String read(Path file) throws ConfigException {
        try {
            long size = Files.size(file);
            if (size > MAX_BYTES) {
                throw tooLarge(file.toString(), size); // before reading it: the size alone decides
            }
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw single(file.toString(), 0, "file not found (looked in " + file.toAbsolutePath().normalize() + ")");
        } catch (MalformedInputException e) {
            throw single(file.toString(), 0, "file is not valid UTF-8 text");
        } catch (IOException e) {
            throw single(file.toString(), 0, "cannot read file: " + e);
        }
    }

    private static ConfigException tooLarge(String file, long size) {
        return single(file, 0, "config is " + size + " bytes, over the limit of " + MAX_BYTES + " (1 MiB)");
    }

    /** The UTF-8 size of {@code text}. */
    private static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return bytes;
    }

    private static ConfigException single(String file, int line, String message) {
        return new ConfigException(List.of(new ConfigError(file, line, "", message)));
    }
}
