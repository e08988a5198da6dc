package dev.tunnel.protocol.mux;

/**
 * Flow-control settings of one side.
 *
 * @param initialWindow receive window each new stream starts with, announced to the peer at login
 * @param maxWindow     largest receive window auto-tuning may grow a stream to
 */
public record MuxSettings(int initialWindow, int maxWindow) {
    public static final int DEFAULT_INITIAL_WINDOW = 256 * 1024;
    public static final int DEFAULT_MAX_WINDOW = 16 * 1024 * 1024;

    public static MuxSettings defaults() {
        return new MuxSettings(DEFAULT_INITIAL_WINDOW, DEFAULT_MAX_WINDOW);
    }

    public MuxSettings {
        if (initialWindow < 1024) {
            throw new IllegalArgumentException("initialWindow: " + initialWindow + " (expected: >= 1024)");
        }
        if (maxWindow < initialWindow) {
            throw new IllegalArgumentException("maxWindow: " + maxWindow + " (expected: >= initialWindow " + initialWindow + ")");
        }
    }
}
