package dev.tunnel.server.vhost;

import java.util.ArrayList;
import java.util.List;

/**
 * The path of a request as the vhost routes it, authorizes it and sends it to the app: one
 * normalized form, so that {@code locations} and {@code httpUser} cannot be passed by spelling a
 * protected path another way ({@code /x/../admin}, {@code /./admin}, {@code //admin},
 * {@code /%61dmin}) that the app then reads as the protected one.
 *
 * <h3>Normalized</h3>
 * In this order (as nginx does with {@code merge_slashes on}):
 * <ol>
 * <li>percent-encoded unreserved characters (letters, digits, {@code - . _ ~}) are decoded
 *     (RFC 3986 6.2.2.2), every other percent-encoding is kept as written; a byte outside
 *     ASCII is percent-encoded (it is one in any URI, and so survives re-encoding);</li>
 * <li>empty segments are dropped (merged slashes);</li>
 * <li>dot segments are removed (RFC 3986 5.2.4): {@code .} goes, {@code ..} takes the segment
 *     before it; a path ending in a dot segment or a slash keeps its final slash.</li>
 * </ol>
 *
 * <h3>Refused (400)</h3>
 * What an app behind could read as another path than the normalized one: a path not starting with
 * {@code /}; a control character; a backslash, raw or encoded ({@code %5C}: a separator to some
 * servers); an encoded slash ({@code %2F}) or NUL ({@code %00}); a malformed percent-encoding;
 * a {@code ..} that climbs above the root; a segment whose name before {@code ;} is empty or a
 * dot segment ({@code /..;/}, read as {@code /../} by servlet containers).
 *
 * <h3>Matched</h3>
 * Locations are compared with the normalized path without each segment's {@code ;parameters}
 * ({@link #forMatching}): a servlet container maps {@code /admin;x/secret} as
 * {@code /admin/secret}.
 *
 * <p>A {@code locations} entry that no normalized path could start with is refused when the
 * proxy registers ({@link #locationProblem}).
 *
 * <p>frp routes on Go's decoded {@code URL.Path} (every percent-encoding decoded, {@code %2F}
 * included, dot segments and double slashes kept) and sends the app the path as it came, so
 * {@code /x/../admin} reaches the app of {@code /} there; here the app gets the path routing saw.
 *
 * <p>Threading: stateless.
 */
final class RequestPath {
    private static final String HEX = "0123456789ABCDEF";

    private RequestPath() {
    }

    /**
     * The normalized form of {@code path} (a request target's path, without its query): the
     * same instance when it is normal already, null when it is refused ({@link #problem}).
     */
    static String normalize(String path) {
        if (plainlyNormal(path)) {
            return path;
        }
        String normal = normalizeOrWhy(path, true);
        return normal == null ? null : normal.equals(path) ? path : normal;
    }

    /** Why {@link #normalize} refuses {@code path}, or null when it does not. */
    static String problem(String path) {
        return normalize(path) == null ? normalizeOrWhy(path, false) : null;
    }

    /**
     * Why a proxy's {@code locations} entry could never match as written, or null: every request
     * path is matched in normalized form without parameters, so a location must be one ("" is
     * every path).
     */
    static String locationProblem(String location) {
        if (location.isEmpty()) {
            return null;
        }
        for (int i = 0; i < location.length(); i++) {
            char c = location.charAt(i);
            if (c <= ' ' || c >= 0x7f || c == ';' || c == '?' || c == '#') {
                return "\"" + location + "\" holds '" + c + "' (expected a path such as \"/admin\", other bytes"
                        + " percent-encoded: \"/a%20b\")";
            }
        }
        String normal = normalize(location);
        if (normal == null) {
            return "\"" + location + "\" is no path a request can have: " + problem(location);
        }
        return normal.equals(location) ? null : "\"" + location + "\" is matched as \"" + normal
                + "\" (requests are matched by their normalized path): write that";
    }

    /** The normalized {@code path} without the {@code ;parameters} of each segment; itself when it has none. */
    static String forMatching(String normalized) {
        if (normalized.indexOf(';') < 0) {
            return normalized;
        }
        StringBuilder out = new StringBuilder(normalized.length());
        boolean inParameters = false;
        for (int i = 0; i < normalized.length(); i++) {
            char c = normalized.charAt(i);
            if (c == '/') {
                inParameters = false;
            } else if (c == ';') {
                inParameters = true;
            }
            if (!inParameters) {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** A path with nothing to decode, merge or remove: the common case, checked without allocating. */
    private static boolean plainlyNormal(String path) {
        if (path.isEmpty() || path.charAt(0) != '/') {
            return false;
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c <= ' ' || c >= 0x7f || c == '%' || c == '\\' || c == ';' || c == '#') {
                return false;
            }
            if (c == '/' && i + 1 < path.length()) {
                char next = path.charAt(i + 1);
                if (next == '/' || next == '.' && dotSegmentAt(path, i + 1)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether a {@code .} or {@code ..} segment starts at {@code i}. */
    private static boolean dotSegmentAt(String path, int i) {
        int end = path.indexOf('/', i);
        int length = (end < 0 ? path.length() : end) - i;
        return length == 1 || length == 2 && path.charAt(i + 1) == '.';
    }

    /**
     * @param normal true: the normalized path, or null when refused; false: why it is refused
     *               (or null)
     */
    private static String normalizeOrWhy(String path, boolean normal) {
        if (path.isEmpty() || path.charAt(0) != '/') {
            return normal ? null : "the path does not start with '/'";
        }
        StringBuilder decoded = new StringBuilder(path.length() + 8);
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c < ' ' || c == 0x7f) {
                return normal ? null : "a control character in the path";
            } else if (c == '\\') {
                return normal ? null : "a backslash in the path";
            } else if (c > 0xff) {
                return normal ? null : "a character that is no byte in the path";
            } else if (c >= 0x80) {
                appendEncoded(decoded, c);
            } else if (c != '%') {
                decoded.append(c);
            } else {
                int value = i + 2 < path.length() ? hex(path.charAt(i + 1), path.charAt(i + 2)) : -1;
                if (value < 0) {
                    return normal ? null : "a malformed percent-encoding in the path";
                }
                if (value == '/' || value == '\\' || value == 0) {
                    return normal ? null : "an encoded '/', '\\' or NUL (" + path.substring(i, i + 3) + ") in the path";
                }
                if (unreserved(value)) {
                    decoded.append((char) value);
                } else {
                    decoded.append(path, i, i + 3);
                }
                i += 2;
            }
        }
        List<String> segments = new ArrayList<>();
        boolean finalSlash = false;
        int start = 1;
        while (start <= decoded.length()) {
            int end = decoded.indexOf("/", start);
            if (end < 0) {
                end = decoded.length();
            }
            String segment = decoded.substring(start, end);
            finalSlash = segment.isEmpty() || segment.equals(".") || segment.equals("..");
            if (segment.equals("..")) {
                if (segments.isEmpty()) {
                    return normal ? null : "a '..' segment climbs above the root";
                }
                segments.remove(segments.size() - 1);
            } else if (segment.startsWith(";") || segment.startsWith(".;") || segment.startsWith("..;")) {
                return normal ? null : "path parameters on an empty or dot segment";
            } else if (!finalSlash) {
                segments.add(segment);
            }
            start = end + 1;
        }
        if (!normal) {
            return null;
        }
        StringBuilder out = new StringBuilder(decoded.length());
        for (String segment : segments) {
            out.append('/').append(segment);
        }
        if (segments.isEmpty() || finalSlash) {
            out.append('/');
        }
        return out.toString();
    }

    /**
     * {@code s} with each byte outside ASCII percent-encoded (so it survives Netty's encoder,
     * which writes UTF-8), itself when it has none; null for a character that is no byte.
     */
    static String encodeNonAscii(String s) {
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > 0xff) {
                return null;
            }
            if (c >= 0x80) {
                if (out == null) {
                    out = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                appendEncoded(out, c);
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? s : out.toString();
    }

    private static void appendEncoded(StringBuilder out, char c) {
        out.append('%').append(HEX.charAt(c >> 4)).append(HEX.charAt(c & 0xf));
    }

    /** RFC 3986 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~". */
    private static boolean unreserved(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
                || c == '~';
    }

    /** The byte two hex digits (ASCII, either case) stand for, or -1. */
    private static int hex(char high, char low) {
        int h = hexDigit(high);
        int l = hexDigit(low);
        return h < 0 || l < 0 ? -1 : h << 4 | l;
    }

    private static int hexDigit(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10
                : -1;
    }
}
