package dev.tunnel.config.jackson;

import dev.tunnel.config.ConfigErrors;
import dev.tunnel.config.ConfigException;
import dev.tunnel.config.KeyLineMap;
import dev.tunnel.config.KeyLocator;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;

import java.io.IOException;

/**
 * Reads a YAML or JSON document into a tree from the parser's tokens, recording the line of
 * every key path on the way ({@code proxies[0].localPort}, as {@link KeyLocator} names them),
 * since a finished tree carries no locations.
 *
 * <p>Refuses, with the line, what the tree must not hold: values nested deeper than
 * {@link KeyLocator#MAX_DEPTH} (so the recursion here and in the checks after it is bounded), and
 * YAML aliases ({@code *name}): Jackson hands an alias over as the anchor's name in place of the
 * value it stands for, so a config using one would silently bind the wrong value (and an
 * expanding reader would be open to alias bombs). One instance reads one document, on one thread.
 */
final class LocatingTreeReader {

    private final JsonParser parser;
    private final KeyLineMap lines;
    private final ConfigErrors errors;
    private final JsonNodeFactory nodes = JsonNodeFactory.instance;

    LocatingTreeReader(JsonParser parser, KeyLineMap lines, ConfigErrors errors) {
        this.parser = parser;
        this.lines = lines;
        this.errors = errors;
    }

    /** Reads the whole document, which must be one table (a JSON object, a YAML mapping); empty text is an empty table. */
    ObjectNode read() throws IOException, ConfigException {
        JsonToken first = parser.nextToken();
        if (first == null) {
            return nodes.objectNode();
        }
        if (first != JsonToken.START_OBJECT) {
            throw refuse(line(), "the document must be a table of keys (a JSON object or YAML mapping), not " + describe(first));
        }
        ObjectNode root = object("", 1);
        if (parser.nextToken() != null) {
            throw refuse(line(), "text after the end of the document");
        }
        return root;
    }

    private JsonNode value(String path, int depth) throws IOException, ConfigException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
            if (depth > KeyLocator.MAX_DEPTH) {
                throw refuse(line(), "values nested " + depth + " levels deep, over the limit of " + KeyLocator.MAX_DEPTH);
            }
            return token == JsonToken.START_OBJECT ? object(path, depth) : array(path, depth);
        }
        if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
            throw refuse(line(), path + ": YAML alias *" + parser.getText()
                    + " is not supported (write the value out; anchors and aliases are refused so that a file cannot expand)");
        }
        return switch (token) {
            case VALUE_STRING -> nodes.textNode(parser.getText());
            case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
                case INT -> nodes.numberNode(parser.getIntValue());
                case LONG -> nodes.numberNode(parser.getLongValue());
                default -> nodes.numberNode(parser.getBigIntegerValue());
            };
            case VALUE_NUMBER_FLOAT -> nodes.numberNode(parser.getDecimalValue());
            case VALUE_TRUE -> nodes.booleanNode(true);
            case VALUE_FALSE -> nodes.booleanNode(false);
            case VALUE_NULL -> nodes.nullNode();
            default -> throw refuse(line(), path + ": unexpected " + describe(token));
        };
    }

    private ObjectNode object(String path, int depth) throws IOException, ConfigException {
        ObjectNode node = nodes.objectNode();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            String child = path.isEmpty() ? name : path + '.' + name;
            lines.put(child, line());
            if (node.has(name)) {
                throw refuse(line(), "duplicate key \"" + child + "\"");
            }
            parser.nextToken();
            node.set(name, value(child, depth + 1));
        }
        return node;
    }

    private ArrayNode array(String path, int depth) throws IOException, ConfigException {
        ArrayNode node = nodes.arrayNode();
        int index = 0;
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            String element = path + '[' + index++ + ']';
            lines.put(element, line());
            node.add(value(element, depth + 1));
        }
        return node;
    }

    private int line() {
        return Math.max(0, parser.currentTokenLocation().getLineNr());
    }

    private ConfigException refuse(int line, String message) {
        errors.addAtLine(line, "", message);
        return new ConfigException(errors.list());
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case START_ARRAY -> "a list";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            default -> token.asString() == null ? token.name() : token.asString();
        };
    }
}
