package dev.tunnel.server;

/**
 * The port rules one account is held to: which ports it may open and how many at once.
 * Sessions that share a quota object share its count: every client of a {@code [[users]]}
 * entry shares one; each client of the shared token gets its own.
 *
 * @param holder   how messages name the account ("client", "user alice")
 * @param policy   allowed ports
 * @param maxPorts most ports held at once; 0 = unlimited
 */
record PortQuota(String holder, PortRegistry.PortPolicy policy, int maxPorts) {

    /** Identity, not value, equality: two users with equal rules still have separate counts. */
    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
