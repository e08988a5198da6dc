package dev.tunnel.client.admin;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Map;

/**
 * Writes a config object ({@code ProxyConfig}, {@code VisitorConfig}) as frp's admin API shows
 * one: an object per config table, named by its public fields, which carry frp's key names.
 * Null values are left out (frp's {@code omitempty}), as are empty lists and maps. Reflection over
 * the public fields keeps Jackson's data binding out of the running client (see {@code Json}).
 *
 * <p>Threading: stateless; the object must not change while it is written (the admin API writes
 * the current config, which a reload replaces rather than changes).
 */
final class ConfigJson {
    private ConfigJson() {
    }

    /** Writes {@code value}: a string, number, boolean, list, map, or an object of public fields. */
    static void write(JsonGenerator json, Object value) throws IOException {
        if (value instanceof String || value instanceof Number || value instanceof Boolean || value instanceof Enum<?>) {
            json.writeObject(value instanceof Enum<?> e ? e.name() : value);
        } else if (value instanceof Collection<?> list) {
            json.writeStartArray();
            for (Object item : list) {
                write(json, item);
            }
            json.writeEndArray();
        } else if (value instanceof Map<?, ?> map) {
            json.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                json.writeFieldName(String.valueOf(e.getKey()));
                write(json, e.getValue());
            }
            json.writeEndObject();
        } else {
            writeFields(json, value);
        }
    }

    private static void writeFields(JsonGenerator json, Object value) throws IOException {
        json.writeStartObject();
        for (Field f : value.getClass().getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            Object v;
            try {
                v = f.get(value);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("public field " + f + " is not readable", e);
            }
            if (v == null || v instanceof Collection<?> c && c.isEmpty() || v instanceof Map<?, ?> m && m.isEmpty()) {
                continue;
            }
            json.writeFieldName(f.getName());
            write(json, v);
        }
        json.writeEndObject();
    }
}
