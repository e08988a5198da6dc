package dev.tunnel.runtime;

/** This build's version, one for both jars: from the jar manifest ("dev" when run from classes). */
public final class Version {
    private Version() {
    }

    /** The version string, e.g. {@code 0.1.0-SNAPSHOT}, or {@code dev}. */
    public static String get() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
