package dev.tunnel.client;

/**
 * A visitor as the client runs it ({@code [[visitors]]}): the secret proxy it reaches and the
 * local port it listens on.
 *
 * @param id         its number on this client, the proxy id of the streams it opens (for logs)
 * @param serverUser the provider's user, "" for this client's own
 * @param secretKey  proven per connection, never sent
 */
record VisitorTarget(int id, String name, String type, String serverUser, String serverName, String secretKey,
                     String bindAddr, int bindPort) {

    /** How logs name it. */
    String describe() {
        return "visitor [" + name + "] (" + type + " to " + (serverUser.isEmpty() ? "" : serverUser + ".") + serverName
                + ")";
    }

    @Override
    public String toString() {
        return describe(); // never the secret key
    }
}
