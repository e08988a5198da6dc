package dev.tunnel.protocol.mux;

/**
 * Flow-control settings of one side.
 *
 * <p>A new stream is guaranteed {@code initialWindow} (announced to the peer at login, so the
 * peer may send that much at once) and granted up to {@code startWindow} with a WINDOW_UPDATE
 * right behind OPEN when the session's and the process's budgets have room; auto-tuning moves it
 * between {@code initialWindow} and {@code maxWindow} afterwards. The sum of a session's stream
 * windows stays under {@code sessionWindow}, apart from the guaranteed part.
 *
 * @param initialWindow guaranteed receive window of each new stream, announced at login
 * @param startWindow   window a new stream starts with when the budgets allow
 *                      ({@code transport.tcpMuxInitialWindow})
 * @param maxWindow     largest receive window auto-tuning may grow a stream to
 * @param sessionWindow receive budget of the session: the sum of its streams' windows
 */
public record MuxSettings(int initialWindow, int startWindow, int maxWindow, long sessionWindow) {
    public static final int DEFAULT_INITIAL_WINDOW = 256 * 1024;
    public static final int DEFAULT_MAX_WINDOW = 16 * 1024 * 1024;
    public static final long DEFAULT_SESSION_WINDOW = 32L * 1024 * 1024;
    /** What every new stream is guaranteed at most; the rest of its start window comes from the budget. */
    public static final int GUARANTEED_WINDOW = 32 * 1024;

    public static MuxSettings defaults() {
        return configured(DEFAULT_INITIAL_WINDOW, DEFAULT_MAX_WINDOW, DEFAULT_SESSION_WINDOW);
    }

    /**
     * From the configuration keys {@code tcpMuxInitialWindow}, {@code tcpMuxMaxWindow} and
     * {@code tcpMuxSessionWindow}: streams are guaranteed at most {@link #GUARANTEED_WINDOW}.
     */
    public static MuxSettings configured(int initialWindow, int maxWindow, long sessionWindow) {
        return new MuxSettings(Math.min(initialWindow, GUARANTEED_WINDOW), initialWindow, maxWindow, sessionWindow);
    }

    /** Every stream starts with {@code initialWindow}, guaranteed; the default session budget. */
    public MuxSettings(int initialWindow, int maxWindow) {
        this(initialWindow, initialWindow, maxWindow, DEFAULT_SESSION_WINDOW);
    }

    public MuxSettings {
        if (initialWindow < 1024) {
            throw new IllegalArgumentException("initialWindow: " + initialWindow + " (expected: >= 1024)");
        }
        if (startWindow < initialWindow) {
            throw new IllegalArgumentException("startWindow: " + startWindow + " (expected: >= initialWindow " + initialWindow + ")");
        }
        if (maxWindow < startWindow) {
            throw new IllegalArgumentException("maxWindow: " + maxWindow + " (expected: >= " + startWindow + ")");
        }
        if (sessionWindow < startWindow) {
            throw new IllegalArgumentException("sessionWindow: " + sessionWindow + " (expected: >= " + startWindow + ")");
        }
    }
}
