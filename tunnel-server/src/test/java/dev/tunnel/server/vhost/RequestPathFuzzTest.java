package dev.tunnel.server.vhost;

import static dev.tunnel.server.vhost.VhostHarness.received;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.testing.Fuzz;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random request paths built from the pieces that spell one path many ways: whatever the path,
 * the proxy chosen, whether it asks for the password, and the path its app is sent agree with a
 * reference normalizer written plainly here, on both head paths (the scan and Netty's decoder).
 *
 * <p>Seeded random fuzzing: {@code -Dfuzz.tries} cases (1,000 in CI), base seed {@code -Dfuzz.seed}
 * (random and printed when unset); see {@link Fuzz}.
 */
class RequestPathFuzzTest {
    private static final String[] PIECES = {"", ".", "..", "%2e", "%2E", "%2e%2e", ".%2E", "%61", "%41", "admin", "ADMIN",
        "adm%69n", "admin;v=1", "x", "y", "X", "/", "//", "%2F", "%2f", "%5C", "%5c", "\\", ";p", "..;", ".;x", "a;b",
        "%00", "%20", "%zz", "%", "%4", "~", "%7e", "%7E", "\u00e9", "%C3%A9", "%3B", "%25", "%252e", "secret.txt", "?q",
        "#f"};
    /** Locations of the routes, longest first, and their proxy ids; the one of /admin asks for u:p. */
    private static final List<String> LOCATIONS = List.of("/x/y", "/admin", "/");
    private static final int ADMIN = 2;

    @Test
    void thePathIsNormalizedAsTheReferenceDoes() {
        Fuzz.run("vhost.path.normalize", rnd -> {
            for (int i = 0; i < 50; i++) {
                String path = path(rnd);
                assertThat(RequestPath.normalize(path)).as(path).isEqualTo(reference(path));
            }
        });
    }

    @Test
    @Timeout(180) // a thousand cases, two vhost ports each, on a shared 2-core machine
    void theProxyAndThePathItsAppSeesAgreeWithTheReference() {
        Fuzz.run("vhost.path.routed", rnd -> {
            String path = path(rnd);
            String query = rnd.nextInt(4) == 0 ? "?q=/../admin&r=%2e" : "";
            boolean absolute = rnd.nextInt(4) == 0 && path.startsWith("/");
            boolean auth = rnd.nextBoolean();
            String head = "GET " + (absolute ? "http://a.example.com" : "") + path + query + " HTTP/1.1\r\nHost: "
                    + (absolute ? "other.example.com" : "a.example.com") + "\r\n"
                    + (auth ? RequestTargetRoutingTest.AUTH : "") + "\r\n";
            String expected = reference(path.contains("?") ? path.substring(0, path.indexOf('?')) : path);
            boolean refused = expected == null || (path + query).contains("#");
            for (boolean scan : new boolean[] {true, false}) {
                try (VhostHarness vhost = new VhostHarness()) {
                    vhost.scanPlainHeads = scan;
                    for (int i = 0; i < LOCATIONS.size(); i++) {
                        int id = LOCATIONS.size() - i;
                        vhost.httpRoutes.add("a.example.com", LOCATIONS.get(i), "", "p" + id, new HttpRoute(
                                vhost.target("p" + id, id), id == ADMIN ? "u" : "", id == ADMIN ? "p" : "", "", Map.of(),
                                Map.of()));
                    }
                    EmbeddedChannel ch = vhost.newHttpConnection();
                    vhost.send(ch, head);
                    String answer = received(ch);
                    String as = (scan ? "scan: " : "decoder: ") + head;
                    if (refused) {
                        assertThat(answer).as(as).startsWith("HTTP/1.1 400 ");
                        assertThat(vhost.apps).as(as).isEmpty();
                        continue;
                    }
                    int proxy = proxyFor(expected);
                    if (proxy == ADMIN && !auth) {
                        assertThat(answer).as(as).startsWith("HTTP/1.1 401 ");
                        assertThat(vhost.apps).as(as).isEmpty();
                        continue;
                    }
                    String rest = path.contains("?") ? path.substring(path.indexOf('?')) + query : query;
                    rest = rest.chars().mapToObj(c -> c < 0x80 ? String.valueOf((char) c) : String.format("%%%02X", c))
                            .collect(Collectors.joining()); // bytes outside ASCII go encoded
                    assertThat(vhost.apps).as(as).hasSize(1);
                    assertThat(vhost.apps.get(0).proxyId).as(as).isEqualTo(proxy);
                    assertThat(vhost.apps.get(0).received.toString()).as(as)
                            .startsWith("GET " + expected + rest + " HTTP/1.1\r\n")
                            .contains("\r\nHost: a.example.com\r\n");
                }
            }
        });
    }

    /** One to six pieces, mostly after a slash each; one in eight does not start with a slash. */
    private static String path(SplittableRandom rnd) {
        StringBuilder path = new StringBuilder(rnd.nextInt(8) == 0 ? "" : "/");
        int pieces = Fuzz.between(rnd, 1, 6);
        for (int i = 0; i < pieces; i++) {
            if (i > 0 && rnd.nextInt(4) != 0) {
                path.append('/');
            }
            path.append(PIECES[rnd.nextInt(PIECES.length)]);
        }
        return path.toString();
    }

    /** The proxy id of the longest location that prefixes the path without ;parameters, case ignored. */
    private static int proxyFor(String normalized) {
        String matched = normalized.replaceAll(";[^/]*", "").toLowerCase(Locale.ROOT);
        for (int i = 0; i < LOCATIONS.size(); i++) {
            if (matched.startsWith(LOCATIONS.get(i))) {
                return LOCATIONS.size() - i;
            }
        }
        throw new AssertionError("no location for " + normalized);
    }

    /**
     * The path as docs/vhost.md describes it, or null when refused: unreserved percent-encodings
     * decoded and other bytes outside ASCII encoded; empty segments merged; dot segments removed,
     * none above the root; no backslash, control character, encoded slash, backslash or NUL,
     * malformed encoding, or parameters on an empty or dot segment.
     */
    static String reference(String path) {
        if (!path.startsWith("/")) {
            return null;
        }
        StringBuilder decoded = new StringBuilder();
        int i = 0;
        while (i < path.length()) {
            char c = path.charAt(i);
            if (c == '%') {
                if (i + 3 > path.length() || !path.substring(i + 1, i + 3).matches("[0-9A-Fa-f]{2}")) {
                    return null;
                }
                int value = Integer.parseInt(path.substring(i + 1, i + 3), 16);
                if (value == '/' || value == '\\' || value == 0) {
                    return null;
                }
                boolean unreserved = value < 128 && (Character.isLetterOrDigit(value) || "-._~".indexOf(value) >= 0);
                decoded.append(unreserved ? String.valueOf((char) value) : path.substring(i, i + 3));
                i += 3;
            } else if (c == '\\' || c < 0x20 || c == 0x7f) {
                return null;
            } else {
                decoded.append(c < 0x80 ? String.valueOf(c) : String.format("%%%02X", (int) c));
                i++;
            }
        }
        String[] segments = decoded.substring(1).split("/", -1);
        Deque<String> kept = new ArrayDeque<>();
        for (String segment : segments) {
            if (segment.matches("\\.{0,2};.*")) {
                return null;
            }
            if (segment.equals("..")) {
                if (kept.isEmpty()) {
                    return null;
                }
                kept.removeLast();
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                kept.addLast(segment);
            }
        }
        String last = segments[segments.length - 1];
        boolean finalSlash = last.isEmpty() || last.equals(".") || last.equals("..");
        return "/" + String.join("/", kept) + (finalSlash && !kept.isEmpty() ? "/" : "");
    }
}
