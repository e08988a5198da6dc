package dev.tunnel.config.jackson;

import dev.tunnel.config.ConfigErrors;
import dev.tunnel.config.EnvTemplate;
import dev.tunnel.config.Suggestions;
import dev.tunnel.config.UnsupportedKeys;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Checks a parsed TOML tree against the shape of a config class, as Jackson sees its properties.
 *
 * <p>Reports unknown keys (with the nearest valid key), frp keys tunnel does not support yet and
 * values of the wrong type, and removes each offending node so that the rest still binds and its
 * values can be validated too. Expands {@code {{ .Envs.NAME }}} in string values on the way.
 */
final class TreeChecker {

    private final ObjectMapper mapper;
    private final Map<JavaType, Map<String, JavaType>> shapes;
    private final UnsupportedKeys unsupported;
    private final EnvTemplate env;
    private final ConfigErrors errors;

    /**
     * @param shapes each config class's properties, filled on first use and shared by every check
     *               of the same binder: introspecting a class costs about a millisecond, and a
     *               file with a hundred {@code [[proxies]]} would otherwise pay it for each
     */
    TreeChecker(ObjectMapper mapper, Map<JavaType, Map<String, JavaType>> shapes, UnsupportedKeys unsupported,
                EnvTemplate env, ConfigErrors errors) {
        this.mapper = mapper;
        this.shapes = shapes;
        this.unsupported = unsupported;
        this.env = env;
        this.errors = errors;
    }

    private JavaType rootType;

    /** Checks and fixes up {@code root} in place; every problem goes to the error collector. */
    void check(ObjectNode root, JavaType type) {
        this.rootType = type;
        Map.Entry<String, String> otherSide = OtherSide.of(root, properties(type));
        if (otherSide != null) {
            errors.add(otherSide.getKey(), otherSide.getValue());
            root.removeAll(); // its other keys would each be "unknown", which says less
            return;
        }
        object(root, type, "");
    }

    private void object(ObjectNode node, JavaType type, String path) {
        Map<String, JavaType> properties = properties(type);
        for (String name : names(node)) {
            String childPath = join(path, name);
            JsonNode child = node.get(name);
            if (unsupported.contains(childPath)) {
                reportUnsupported(child, childPath);
                node.remove(name);
            } else if (!properties.containsKey(name)) {
                errors.add(childPath, unknownKeyMessage(childPath, name, path, properties));
                node.remove(name);
            } else {
                JsonNode fixed = value(child, properties.get(name), childPath);
                if (fixed == null) {
                    node.remove(name);
                } else {
                    node.set(name, fixed);
                }
            }
        }
    }

    /** Returns the node to keep (possibly with env expanded), or null to drop it after reporting. */
    private JsonNode value(JsonNode node, JavaType type, String path) {
        Class<?> raw = type.getRawClass();
        if (raw == boolean.class || raw == Boolean.class) {
            return node.isBoolean() ? node : wrongType(node, path, "true or false");
        }
        if (raw == int.class || raw == Integer.class) {
            return node.isIntegralNumber() && node.canConvertToInt() ? node : wrongType(node, path, "an integer");
        }
        if (raw == long.class || raw == Long.class) {
            return node.isIntegralNumber() && node.canConvertToLong() ? node : wrongType(node, path, "an integer");
        }
        if (raw == String.class) {
            return node.isTextual() ? TextNode.valueOf(env.expand(node.textValue(), path, errors))
                    : wrongType(node, path, "a string in quotes");
        }
        if (type.isCollectionLikeType()) {
            if (!node.isArray()) {
                return wrongType(node, path, "an array [...]");
            }
            // Elements of the wrong type are dropped after reporting, so later indexes in
            // validation messages may shift by one; the reported type error names the original.
            ArrayNode kept = mapper.createArrayNode();
            for (int i = 0; i < node.size(); i++) {
                JsonNode element = value(node.get(i), type.getContentType(), path + '[' + i + ']');
                if (element != null) {
                    kept.add(element);
                }
            }
            return kept;
        }
        if (!node.isObject()) {
            return wrongType(node, path, "a table");
        }
        if (type.isMapLikeType()) {
            // any key is valid in a map (requestHeaders.set.NAME): only the values are checked
            ObjectNode map = (ObjectNode) node;
            for (String name : names(map)) {
                JsonNode fixed = value(map.get(name), type.getContentType(), join(path, name));
                if (fixed == null) {
                    map.remove(name);
                } else {
                    map.set(name, fixed);
                }
            }
            return map;
        }
        object((ObjectNode) node, type, path);
        return node;
    }

    private JsonNode wrongType(JsonNode node, String path, String expected) {
        errors.add(path, render(node) + " (expected: " + expected + ")");
        return null;
    }

    private void reportUnsupported(JsonNode node, String path) {
        if (node.isObject() && !node.isEmpty()) {
            names(node).forEach(name -> reportUnsupported(node.get(name), join(path, name)));
        } else {
            errors.add(path, UnsupportedKeys.message(path));
        }
    }

    private String unknownKeyMessage(String childPath, String name, String parentPath, Map<String, JavaType> properties) {
        String suggestion = Suggestions.nearest(name, properties.keySet());
        String suggestedPath = suggestion == null ? elsewhere(name) : join(parentPath, suggestion);
        return "unknown key \"" + childPath + "\""
                + (suggestedPath == null ? "" : " (did you mean \"" + suggestedPath + "\"?)");
    }

    /** A key of the same name somewhere else in the schema, e.g. "tcpMux" written at the top level. */
    private String elsewhere(String name) {
        List<String> all = new ArrayList<>();
        collectPaths(mapper.constructType(rootType), "", all, 0);
        String lower = name.toLowerCase(Locale.ROOT);
        return all.stream().filter(p -> p.toLowerCase(Locale.ROOT).endsWith("." + lower)).findFirst().orElse(null);
    }

    private void collectPaths(JavaType type, String path, List<String> out, int depth) {
        if (depth > 5) {
            return;
        }
        properties(type).forEach((name, t) -> {
            String p = join(path, name);
            out.add(p);
            JavaType inner = t.isCollectionLikeType() ? t.getContentType() : t;
            if (isTable(inner)) {
                collectPaths(inner, t.isCollectionLikeType() ? p + "[]" : p, out, depth + 1);
            }
        });
    }

    private Map<String, JavaType> properties(JavaType type) {
        return shapes.computeIfAbsent(type, this::introspect);
    }

    private Map<String, JavaType> introspect(JavaType type) {
        Map<String, JavaType> out = new LinkedHashMap<>();
        if (!isTable(type)) {
            return out;
        }
        for (BeanPropertyDefinition p : mapper.getDeserializationConfig().introspect(type).findProperties()) {
            if (p.hasField() || p.hasSetter()) {
                out.put(p.getName(), p.getPrimaryType());
            }
        }
        return Collections.unmodifiableMap(out);
    }

    private static boolean isTable(JavaType type) {
        Class<?> raw = type.getRawClass();
        return !raw.isPrimitive() && !raw.getName().startsWith("java.") && !type.isContainerType();
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.properties().forEach(e -> names.add(e.getKey()));
        return names;
    }

    private static String render(JsonNode node) {
        String text = node.toString();
        return text.length() > 60 ? text.substring(0, 57) + "..." : text;
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + '.' + name;
    }
}
