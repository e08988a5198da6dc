package dev.tunnel.client;

import dev.tunnel.protocol.auth.ChannelBinding;

/**
 * What the client logs in with. {@code token} is a secret: {@link #toString()} leaves it out.
 *
 * @param user         the {@code user} key, "" for the shared token
 * @param token        auth.token (or the content of auth.tokenFile)
 * @param pinnedServer transport.tls.serverFingerprint, or null when not pinned
 */
record ClientCredentials(String user, String token, ChannelBinding pinnedServer) {
    @Override
    public String toString() {
        return "ClientCredentials[user=" + user + ", pinnedServer=" + pinnedServer + "]";
    }
}
