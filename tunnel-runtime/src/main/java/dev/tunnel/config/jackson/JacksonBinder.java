package dev.tunnel.config.jackson;

import dev.tunnel.config.ConfigBinder;
import dev.tunnel.config.ConfigErrors;
import dev.tunnel.config.ConfigFormat;
import dev.tunnel.config.ConfigLoader;
import dev.tunnel.config.ConfigException;
import dev.tunnel.config.EnvTemplate;
import dev.tunnel.config.KeyLineMap;
import dev.tunnel.config.KeyLocator;
import dev.tunnel.config.UnsupportedKeys;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlFactory;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.yaml.snakeyaml.LoaderOptions;

import java.io.IOException;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Parse with jackson-dataformat-toml (or -yaml, or jackson-core's JSON), check keys and types against the class ({@link TreeChecker}),
 * bind. Only {@link dev.tunnel.config.ConfigLoader} creates it, in a
 * {@link dev.tunnel.runtime.ThrowawayLoader}: nothing outside this package may refer to
 * Jackson.
 */
public final class JacksonBinder implements ConfigBinder {

    /** The loader checks both limits first; these are the parser's own, in case its count differs. */
    private final TomlMapper mapper = TomlMapper.builder(TomlFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(KeyLocator.MAX_DEPTH)
                            .maxDocumentLength(ConfigLoader.MAX_BYTES)
                            .build())
                    .build())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();
    /**
     * YAML and JSON are read token by token ({@link LocatingTreeReader}, which enforces the
     * nesting limit itself, so the parsers' own limit is one level higher and never the one
     * that speaks). SnakeYAML's limits apply to its reading of the text as well.
     */
    private final JsonFactory json = JsonFactory.builder()
            .streamReadConstraints(treeConstraints())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    private final YAMLFactory yaml = YAMLFactory.builder()
            .loaderOptions(yamlLimits())
            .streamReadConstraints(treeConstraints())
            .build();
    private final Map<JavaType, Map<String, JavaType>> shapes = new ConcurrentHashMap<>();

    private static StreamReadConstraints treeConstraints() {
        return StreamReadConstraints.builder()
                .maxNestingDepth(KeyLocator.MAX_DEPTH + 1)
                .maxDocumentLength(ConfigLoader.MAX_BYTES)
                .build();
    }

    private static LoaderOptions yamlLimits() {
        LoaderOptions options = new LoaderOptions();
        options.setMaxAliasesForCollections(0);
        options.setNestingDepthLimit(KeyLocator.MAX_DEPTH + 1);
        options.setCodePointLimit(ConfigLoader.MAX_BYTES);
        options.setAllowDuplicateKeys(false);
        options.setProcessComments(false);
        return options;
    }

    @Override
    public Object bindTree(String text, ConfigFormat format, Class<?> type, UnsupportedKeys unsupported,
                           EnvTemplate env, ConfigErrors errors, KeyLineMap lines) throws ConfigException {
        ObjectNode tree;
        try (JsonParser parser = format == ConfigFormat.YAML ? yaml.createParser(text) : json.createParser(text)) {
            tree = new LocatingTreeReader(parser, lines, errors).read();
        } catch (JacksonException e) {
            int line = e.getLocation() == null ? 0 : Math.max(0, e.getLocation().getLineNr());
            errors.addAtLine(line, "", format + " syntax error: " + e.getOriginalMessage());
            throw new ConfigException(errors.list());
        } catch (IOException e) {
            throw new IllegalStateException("reading a string cannot fail with I/O", e);
        }
        return checkAndBind(tree, type, unsupported, env, errors);
    }

    @Override
    public Object bindToml(String toml, Class<?> type, UnsupportedKeys unsupported, EnvTemplate env, ConfigErrors errors,
                       KeyLocator locator) throws ConfigException {
        return checkAndBind(parseTree(toml, errors, locator), type, unsupported, env, errors);
    }

    private Object checkAndBind(ObjectNode tree, Class<?> type, UnsupportedKeys unsupported, EnvTemplate env,
                                ConfigErrors errors) {
        JavaType javaType = mapper.constructType(type);
        new TreeChecker(mapper, shapes, unsupported, env, errors).check(tree, javaType);
        try {
            return mapper.treeToValue(tree, javaType);
        } catch (JacksonException e) {
            // TreeChecker removes every node that would not bind, so this is a bug, not a user error.
            throw new IllegalStateException("config binding failed after checks: " + e.getOriginalMessage(), e);
        }
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
}
