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
 *
 * <p>It also bounds how deep a file nests, so that neither this scan nor the parser and binder
 * after it recurse without bound: every key segment, array and inline table is one level, and the
 * scan stops at the first value deeper than {@value #MAX_DEPTH} levels ({@link #tooDeep()}).
 */
public final class KeyLocator implements KeyLines {

    /** The deepest nesting a config file may have; real ones need about 6 ({@code proxies[0].plugin.requestHeaders.set.X}). */
    public static final int MAX_DEPTH = 32;

    private final Map<String, Integer> lines = new HashMap<>();
    private final Map<String, Integer> arrayCounts = new HashMap<>();
    private final List<String> duplicates = new ArrayList<>();
    private final Map<String, Integer> duplicateLines = new HashMap<>();
    private final String s;
    private int pos;
    private int line = 1;
    private Nesting tooDeep;
    /** Key segments in the last table header ({@code [a."b.c".d]} has 3): the depth of its keys. */
    private int headerDepth;

    /**
     * Where a file first nests deeper than {@link #MAX_DEPTH}.
     *
     * @param line  1-based line of the value that went past the limit
     * @param depth how deep that value goes, measured from there on
     */
    public record Nesting(int line, int depth) {
    }

    /** Thrown inside the scan when the nesting limit is passed; {@link #scan} stops there. */
    private static final class TooDeep extends RuntimeException {
        TooDeep() {
            super(null, null, false, false);
        }
    }

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

    /** Where the text nests deeper than {@link #MAX_DEPTH} levels, or null when it does not. */
    public Nesting tooDeep() {
        return tooDeep;
    }

    @Override
    public int lineOf(String keyPath) {
        return KeyLineMap.lookup(lines, keyPath);
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
        int tableDepth = 0;
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
                tableDepth = headerDepth;
                skipToEol();
            } else {
                keyValue(table, tableDepth, true);
                skipToEol();
            }
        }
    }

    private String header() {
        boolean array = s.startsWith("[[", pos);
        pos += array ? 2 : 1;
        List<String> key = key();
        headerDepth = key.size();
        checkDepth(headerDepth);
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

    /** Parses {@code key = value}; records every prefix of the key under {@code prefix}, {@code depth} levels deep. */
    private void keyValue(String prefix, int depth, boolean topLevel) {
        List<String> key = key();
        if (key.isEmpty()) {
            return;
        }
        int valueDepth = depth + key.size();
        checkDepth(valueDepth);
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
        value(path, valueDepth);
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

    private void value(String path, int depth) {
        skipBlanks();
        if (pos >= s.length()) {
            return;
        }
        lines.putIfAbsent(path, line);
        char c = s.charAt(pos);
        if (c == '"' || c == '\'') {
            quoted(c);
        } else if (c == '[') {
            checkDepth(depth + 1);
            array(path, depth + 1);
        } else if (c == '{') {
            inlineTable(path, depth);
        } else {
            while (pos < s.length() && ",]}\n#".indexOf(s.charAt(pos)) < 0) {
                pos++;
            }
        }
    }

    private void array(String path, int depth) {
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
            value(path + '[' + index + ']', depth);
            skipBlanksNewlinesComments();
            if (pos < s.length() && s.charAt(pos) == ',') {
                pos++;
                index++;
            } else if (pos == before || pos >= s.length() || s.charAt(pos) != ']') {
                return;
            }
        }
    }

    private void inlineTable(String path, int depth) {
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
            keyValue(path, depth, false);
            skipBlanks();
            if (pos < s.length() && s.charAt(pos) == ',') {
                pos++;
            } else if (pos == before || pos >= s.length() || s.charAt(pos) != '}') {
                return;
            }
        }
    }

    /** Stops the scan when a value {@code depth} levels deep is past {@link #MAX_DEPTH}. */
    private void checkDepth(int depth) {
        if (depth > MAX_DEPTH) {
            tooDeep = new Nesting(line, depth + bracketsBelow());
            throw new TooDeep();
        }
    }

    /**
     * How many more levels of arrays and inline tables open from here before they close again,
     * counted in one loop (no recursion, whatever the depth), skipping strings and comments.
     */
    private int bracketsBelow() {
        int open = 0;
        int deepest = 0;
        while (pos < s.length() && open >= 0) {
            char c = s.charAt(pos);
            if (c == '"' || c == '\'') {
                quoted(c);
                continue;
            }
            if (c == '#') {
                skipToEol();
                continue;
            }
            if (c == '[' || c == '{') {
                deepest = Math.max(deepest, ++open);
            } else if (c == ']' || c == '}') {
                open--;
            }
            pos++;
        }
        return Math.max(0, deepest - 1);
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
