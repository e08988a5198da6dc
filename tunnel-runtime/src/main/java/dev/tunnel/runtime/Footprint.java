package dev.tunnel.runtime;

/** Memory housekeeping the two jars do once they are up. */
public final class Footprint {

    private Footprint() {
    }

    /**
     * One full collection once the server or client is up: it unloads the start-up-only classes
     * (the config parser, BouncyCastle; see {@link ThrowawayLoader}: with the serial collector only
     * a full collection unloads classes) and drops the start-up garbage, so the heap and metaspace a small VPS keeps are those of the
     * running tunnel. A few milliseconds with a small heap, once.
     */
    public static void afterStartup() {
        System.gc();
    }
}
