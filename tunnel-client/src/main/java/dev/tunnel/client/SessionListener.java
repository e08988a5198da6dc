package dev.tunnel.client;

import dev.tunnel.protocol.ControlMessage.NewProxyResult;

/** What one tunnel connection reports to the {@link TunnelClient}. Called on its event loop. */
interface SessionListener {
    void loggedIn(String sessionId);

    /** Login was refused by the server; {@code code} is a {@code LoginResult} code. */
    void loginRefused(int code, String reason);

    void proxyResult(NewProxyResult result);

    /** The server answered this client's GOODBYE: its ports are free again. */
    void portsReleased();

    /**
     * The server lacks the PAKE login and {@code auth.pake = "preferred"}: the connection that
     * ends next should be made again at once, with the token login.
     */
    void pakeFallback();

    /** The connection ended; {@code reason} says why, or null after a clean close. */
    void disconnected(String reason);
}
