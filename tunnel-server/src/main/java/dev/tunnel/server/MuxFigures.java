package dev.tunnel.server;

import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.server.web.ServerStats;

/**
 * A logged-in session's figures for the API and the metrics, read straight from its multiplexer
 * at each scrape: nothing is copied or cached.
 *
 * <p>Threading: any thread (the scrape's); {@link MuxSession} keeps these figures readable from any.
 */
record MuxFigures(MuxSession mux) implements ServerStats.SessionFigures {

    @Override
    public long rttNanos() {
        return mux.rttNanos();
    }

    @Override
    public long windowStalls() {
        return mux.windowStalls();
    }

    @Override
    public long queueDelayNanos() {
        return mux.queueDelayNanos();
    }
}
