package dev.tunnel.client;

/** This build's version, from the jar manifest ("dev" when run from classes). */
final class Version {
    private Version() {
    }

    static String get() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
