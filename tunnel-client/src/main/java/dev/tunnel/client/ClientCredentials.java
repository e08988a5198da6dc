package dev.tunnel.client;

import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.PakeMode;

/**
 * What the client logs in with. {@code token} is a secret: {@link #toString()} leaves it out.
 *
 * @param user         the {@code user} key, "" for the shared token
 * @param token        auth.token (or the content of auth.tokenFile)
 * @param pinnedServer transport.tls.serverFingerprint, or null when not pinned
 * @param pake         auth.pake and what the client learnt of its server
 */
record ClientCredentials(String user, String token, ChannelBinding pinnedServer, ClientPake pake) {

    /** Without the PAKE login (tests that play the server's token login). */
    ClientCredentials(String user, String token, ChannelBinding pinnedServer) {
        this(user, token, pinnedServer, new ClientPake(PakeMode.OFF));
    }

    @Override
    public String toString() {
        return "ClientCredentials[user=" + user + ", pinnedServer=" + pinnedServer + ", pake=" + pake.mode() + "]";
    }
}
