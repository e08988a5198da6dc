package dev.tunnel.protocol.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads a TOML file into a config class: parse, check keys and types against the class, bind,
 * validate values, and throw one {@link ConfigException} listing every error.
 *
 * <p>A TOML syntax error stops at once (the parser cannot go on), reported with its line. All
 * other errors are collected: unknown keys, frp keys not supported yet, wrong types, bad values.
 * Defaults are whatever the config class's fields start with.
 *
 * @param <T> the config class: public mutable fields, a no-argument constructor, one nested class per table
 */
public final class ConfigLoader<T> {

    private final TomlMapper mapper = TomlMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();
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
     * Parses TOML text.
     *
     * @param toml              the file content
     * @param fileNameForErrors how errors name the file
     * @param env               environment lookup for templates, null for unset variables
     */
    public T parse(String toml, String fileNameForErrors, Function<String, String> env) throws ConfigException {
        KeyLocator locator = KeyLocator.scan(toml);
        ConfigErrors errors = new ConfigErrors(fileNameForErrors, locator);
        ObjectNode tree = parseTree(toml, errors, locator);
        JavaType javaType = mapper.constructType(type);
        new TreeChecker(mapper, unsupported, new EnvTemplate(env), errors).check(tree, javaType);
        T config;
        try {
            config = mapper.treeToValue(tree, javaType);
        } catch (JacksonException e) {
            // TreeChecker removes every node that would not bind, so this is a bug, not a user error.
            throw new IllegalStateException("config binding failed after checks: " + e.getOriginalMessage(), e);
        }
        validator.validate(config, errors);
        errors.throwIfAny();
        return config;
    }

    private ObjectNode parseTree(String toml, ConfigErrors errors, KeyLocator locator) throws ConfigException {
        try {
            JsonNode node = mapper.readTree(toml);
            return node instanceof ObjectNode o ? o : mapper.createObjectNode();
        } catch (JacksonException e) {
            String message = e.getOriginalMessage();
            int line = e.getLocation() == null ? 0 : syntaxErrorLine(toml, message,
                    e.getLocation().getLineNr(), e.getLocation().getColumnNr());
            Map.Entry<String, Integer> duplicate = locator.firstDuplicate();
            if (message.startsWith("Duplicate key") && duplicate != null) {
                // The parser reports the end of the table; the scan knows the second assignment.
                errors.addAtLine(duplicate.getValue(), duplicate.getKey(), "duplicate key (TOML syntax error)");
            } else {
                errors.addAtLine(Math.max(line, 0), "", "TOML syntax error: " + message);
            }
            throw new ConfigException(errors.list());
        }
    }

    /**
     * The parser reports an unclosed table header ({@code [[proxies]}) where it looked ahead: the
     * start of the next content line. Point at the header line instead.
     */
    static int syntaxErrorLine(String toml, String message, int line, int column) {
        String[] lines = toml.split("\n", -1);
        int result = Math.max(0, Math.min(line, lines.length));
        if (message.contains("TABLE_CLOSE") && column == 1) {
            for (int i = result - 2; i >= 0; i--) {
                String text = lines[i].strip();
                if (!text.isEmpty() && !text.startsWith("#")) {
                    return i + 1;
                }
            }
        }
        return result;
    }

    private static String read(Path file) throws ConfigException {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw single(file, "file not found (looked in " + file.toAbsolutePath().normalize() + ")");
        } catch (MalformedInputException e) {
            throw single(file, "file is not valid UTF-8 text");
        } catch (IOException e) {
            throw single(file, "cannot read file: " + e);
        }
    }

    private static ConfigException single(Path file, String message) {
        return new ConfigException(List.of(new ConfigError(file.toString(), 0, "", message)));
    }
}
