package dev.tunnel.server.proxy;

/**
 * What a logged-in client session offers a proxy type that starts one of its proxies.
 * Session loop only.
 */
public interface ProxySession {

    /** The session id (the registry's key). */
    String id();

    /**
     * The client as log lines name it: {@code client [home]} by its {@code clientID}, else by its
     * user, else by its run id ({@code client [run 4f2a...]}), then the session id.
     */
    String label();

    /** The user the client logged in as, "" for the shared token. */
    String user();

    /** How this session's public connections reach the client. */
    SessionLink link();

    /** This session's public ports, held to its account's rules. */
    PublicPorts ports();
}
