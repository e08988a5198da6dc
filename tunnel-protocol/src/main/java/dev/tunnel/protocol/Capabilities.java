package dev.tunnel.protocol;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * What a peer can do, exchanged at login instead of an exact version match: the client lists its
 * capabilities in {@code LOGIN}, the server its own in {@code LOGIN_RESULT}. Each side then uses a
 * feature only when the other listed it, and refuses (naming both versions and what is missing)
 * only what it cannot do without. Two releases that differ in features but share what they use
 * work together.
 *
 * <p>A capability is a short name: {@code proxy.TYPE} for each proxy type a side carries (from
 * its proxy-type registry), and the names below for protocol features. The preface version
 * ({@link Preface#VERSION}) changes only with the frame layout itself.
 */
public final class Capabilities {
    /** {@code NEW_PROXY} and {@code CLOSE_PROXY} at any time during a session, not only behind the login. */
    public static final String LIVE_PROXIES = "proxies.live";
    /** Options maps in {@code LOGIN}, {@code LOGIN_RESULT}, {@code NEW_PROXY} and {@code NEW_PROXY_RESULT}. */
    public static final String OPTIONS = "options";

    /**
     * An OPEN frame may carry the stream's first bytes ({@link Frame#FLAG_DATA}): the receiver
     * decodes it as OPEN then DATA. Each side lists it when it accepts such frames, and folds its
     * own OPENs only when the other listed it.
     */
    public static final String OPEN_DATA = "mux.openData";
    /**
     * Pool mode: the server may hand out nonces ahead in {@code REQ_WORK_CONN}, one per work
     * connection asked for, and a work connection then proves itself with its nonce in its first
     * flight instead of waiting for the server's {@code CHALLENGE}. The client lists it when it
     * accepts such requests; the server issues nonces only to a client that listed it.
     */
    public static final String ISSUED_NONCES = "pool.issuedNonces";
    /**
     * {@code loadBalancer.group} and {@code loadBalancer.groupKey} in a tcp proxy's options: the
     * server shares one public port among the group's proxies (a server without it would ignore
     * the keys and open the port for one proxy alone).
     */
    public static final String LOAD_BALANCER = "loadBalancer";
    /**
     * {@code clientID} and {@code metadatas.*} in the login's options, {@code metadatas.*} and
     * {@code annotations.*} in a proxy's: the server keeps them and shows them in its API.
     */
    public static final String METADATA = "metadatas";
    /**
     * {@code allowIPs}, {@code denyIPs} and {@code maxNewConnsPerIPPerMinute} in a proxy's options:
     * the server refuses visitors by them (a server without it would ignore the keys and let
     * everyone in, so a client does not start such a proxy there).
     */
    public static final String VISITOR_RULES = "proxy.visitorRules";

    /**
     * The PAKE login (SPAKE2+, docs/security.md): the client listed it when it logged in with
     * {@code PAKE_HELLO}; the server lists it when it offers that login ({@code auth.pake} not
     * {@code off}). A client refused after a hello by a server that does not list it logs in with
     * the token login next time, unless its {@code auth.pake} is {@code required}.
     */
    public static final String PAKE_LOGIN = "login.spake2plus";

    /** What every build of this protocol generation has, whatever its proxy types. */
    public static final List<String> BASE = List.of(OPTIONS, LIVE_PROXIES);

    /** Longest capability list accepted in one message. */
    public static final int MAX_COUNT = 256;

    private Capabilities() {
    }

    /** The capability a proxy type stands for: {@code proxy.tcp}. */
    public static String proxyType(String type) {
        return "proxy." + type;
    }

    /** Those of {@code needed} not in {@code offered}, in the order of {@code needed}. */
    public static List<String> missing(Collection<String> needed, Set<String> offered) {
        List<String> out = new ArrayList<>();
        for (String c : needed) {
            if (!offered.contains(c)) {
                out.add(c);
            }
        }
        return out;
    }
}
