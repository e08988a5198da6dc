package dev.tunnel.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the line of each key path in TOML text, because Jackson's TOML tree carries no locations.
 *
 * <p>Understands tables ({@code [transport.tls]}), arrays of tables ({@code [[proxies]]}, numbered
 * from 0 as {@code proxies[0]}), dotted keys ({@code transport.tls.enable = true}), inline tables
 * and arrays of inline tables ({@code allowPorts = [{start = 1, end = 2}]}), multi-line strings
 * and arrays. It is meant for text the TOML parser has accepted; on anything it does not
 * understand it skips to the next line. Best effort: a path it never saw maps to the line of its
 * nearest enclosing table, or 0.
 */
public final class KeyLocator {

    private final Map<String, Integer> lines = new HashMap<>();
    private final Map<String, Integer> arrayCounts = new HashMap<>();
    private final List<String> duplicates = new ArrayList<>();
    private final Map<String, Integer> duplicateLines = new HashMap<>();
    private final String s;
    private int pos;
    private int line = 1;

    private KeyLocator(String text) {
        this.s = text;
    }

    /** Scans {@code text} once; lookups afterwards are map reads. */
    public static KeyLocator scan(String text) {
        KeyLocator locator = new KeyLocator(text);
        try {
            locator.document();
        } catch (RuntimeException e) {
            // Best effort: keep what was found before the text stopped making sense to us.
        }
        return locator;
    }

    /** The 1-based line where {@code keyPath} (or else its nearest enclosing table) is defined, 0 if unknown. */
    public int lineOf(String keyPath) {
        String p = keyPath;
        while (!p.isEmpty()) {
            Integer l = lines.get(p);
            if (l != null) {
                return l;
            }
            p = parentOf(p);
        }
        return 0;
    }

    /** The first key path assigned twice, with its second line, or null (used to place "Duplicate key"). */
    public Map.Entry<String, Integer> firstDuplicate() {
        return duplicates.isEmpty() ? null : Map.entry(duplicates.get(0), duplicateLines.get(duplicates.get(0)));
    }

    static String parentOf(String path) {
        int cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
        return cut < 0 ? "" : path.substring(0, cut);
    }

    private void document() {
        String table = "";
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\r') {
                pos++;
            } else if (c == '\n') {
                newline();
            } else if (c == '#') {
                skipToEol();
            } else if (c == '[') {
                table = header();
                skipToEol();
            } else {
                keyValue(table, true);
                skipToEol();
            }
        }
    }

    private String header() {
        boolean array = s.startsWith("[[", pos);
        pos += array ? 2 : 1;
        List<String> key = key();
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < key.size(); i++) {
            if (path.length() > 0) {
                path.append('.');
            }
            path.append(key.get(i));
            String p = path.toString();
            lines.putIfAbsent(p, line);
            if (array && i == key.size() - 1) {
                int index = arrayCounts.merge(p, 1, Integer::sum) - 1;
                path.append('[').append(index).append(']');
            } else if (arrayCounts.containsKey(p)) {
                path.append('[').append(arrayCounts.get(p) - 1).append(']');
            }
        }
        String resolved = path.toString();
        lines.putIfAbsent(resolved, line);
        return resolved;
    }

    /** Parses {@code key = value}; records every prefix of the key under {@code prefix}. */
    private void keyValue(String prefix, boolean topLevel) {
        List<String> key = key();
        if (key.isEmpty()) {
            return;
        }
        skipBlanks();
        if (pos >= s.length() || s.charAt(pos) != '=') {
            return;
        }
        pos++;
        String path = prefix;
        for (String segment : key) {
            path = path.isEmpty() ? segment : path + '.' + segment;
            lines.putIfAbsent(path, line);
        }
        if (topLevel && !duplicateLines.containsKey(path) && lines.get(path) != line) {
            duplicates.add(path);
            duplicateLines.put(path, line);
        }
        value(path);
    }

    private List<String> key() {
        List<String> segments = new ArrayList<>();
        while (true) {
            skipBlanks();
            if (pos >= s.length()) {
                return segments;
            }
            char c = s.charAt(pos);
            if (c == '"' || c == '\'') {
                segments.add(quoted(c));
            } else {
                int start = pos;
                while (pos < s.length() && isBareKeyChar(s.charAt(pos))) {
                    pos++;
                }
                if (pos == start) {
                    return segments;
                }
                segments.add(s.substring(start, pos));
            }
            skipBlanks();
            if (pos < s.length() && s.charAt(pos) == '.') {
                pos++;
            } else {
                return segments;
            }
        }
    }

    private void value(String path) {
        skipBlanks();
        if (pos >= s.length()) {
            return;
        }
        lines.putIfAbsent(path, line);
        char c = s.charAt(pos);
        if (c == '"' || c == '\'') {
            quoted(c);
        } else if (c == '[') {
            array(path);
        } else if (c == '{') {
            inlineTable(path);
        } else {
            while (pos < s.length() && ",]}\n#".indexOf(s.charAt(pos)) < 0) {
                pos++;
            }
        }
    }

    private void array(String path) {
        pos++;
        int index = 0;
        while (true) {
            skipBlanksNewlinesComments();
            if (pos >= s.length()) {
                return;
            }
            if (s.charAt(pos) == ']') {
                pos++;
                return;
            }
            int before = pos;
            value(path + '[' + index + ']');
            skipBlanksNewlinesComments();
            if (pos < s.length() && s.charAt(pos) == ',') {
                pos++;
                index++;
            } else if (pos == before || pos >= s.length() || s.charAt(pos) != ']') {
                return;
            }
        }
    }

    private void inlineTable(String path) {
        pos++;
        while (true) {
            skipBlanks();
            if (pos >= s.length()) {
                return;
            }
            if (s.charAt(pos) == '}') {
                pos++;
                return;
            }
            int before = pos;
            keyValue(path, false);
            skipBlanks();
            if (pos < s.length() && s.charAt(pos) == ',') {
                pos++;
            } else if (pos == before || pos >= s.length() || s.charAt(pos) != '}') {
                return;
            }
        }
    }

    /** Reads a basic or literal string, single- or multi-line, and returns its raw content. */
    private String quoted(char quote) {
        String triple = String.valueOf(quote).repeat(3);
        boolean multi = s.startsWith(triple, pos);
        pos += multi ? 3 : 1;
        int start = pos;
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c == '\\' && quote == '"') {
                if (pos + 1 < s.length() && s.charAt(pos + 1) == '\n') {
                    line++;
                }
                pos += 2;
                continue;
            }
            if (c == '\n') {
                if (!multi) {
                    break;
                }
                line++;
            }
            if (multi ? s.startsWith(triple, pos) : c == quote) {
                String content = s.substring(start, pos);
                pos += multi ? 3 : 1;
                while (multi && pos < s.length() && s.charAt(pos) == quote) {
                    pos++; // up to two quotes may close a multi-line string
                }
                return content;
            }
            pos++;
        }
        return s.substring(start, Math.min(pos, s.length()));
    }

    private void skipBlanks() {
        while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
            pos++;
        }
    }

    private void skipBlanksNewlinesComments() {
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c == '\n') {
                newline();
            } else if (c == '#') {
                while (pos < s.length() && s.charAt(pos) != '\n') {
                    pos++;
                }
            } else if (c == ' ' || c == '\t' || c == '\r') {
                pos++;
            } else {
                return;
            }
        }
    }

    private void skipToEol() {
        while (pos < s.length() && s.charAt(pos) != '\n') {
            pos++;
        }
    }

    private void newline() {
        pos++;
        line++;
    }

    private static boolean isBareKeyChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-';
    }
}
