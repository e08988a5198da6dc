package dev.tunnel.server;

/**
 * Strings a peer chose (a client's version, host name, run id, clientID, or the user a plugin
 * names), made safe to put in a log line or an error message: a peer cannot forge lines or flood
 * one.
 *
 * <p>Threading: stateless; any thread.
 */
final class LogText {

    private LogText() {
    }

    /** {@code s} with every control character as '?', cut to 64 characters (then "..."). */
    static String printable(String s) {
        String clean = s.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        return clean.length() > 64 ? clean.substring(0, 64) + "..." : clean;
    }
}
