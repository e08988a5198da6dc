package dev.tunnel.server.proxy;

/**
 * What a logged-in client session offers a proxy type that starts one of its proxies.
 * Session loop only.
 */
public interface ProxySession {

    /** The session id (log lines). */
    String id();

    /** The user the client logged in as, "" for the shared token. */
    String user();

    /** How this session's public connections reach the client. */
    SessionLink link();

    /** This session's public ports, held to its account's rules. */
    PublicPorts ports();
}
