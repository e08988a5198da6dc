package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.ProtocolException;
import io.netty.channel.Channel;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Why a session ends, logged once when its connection is gone: the first reason given wins (a
 * close asked for with a reason, an error seen in the pipeline, a close from this side), else the
 * peer closed it. At WARN unless the close was asked for (a shutdown, a logout) or the peer may
 * end the session whenever it likes (on the server, a client going away; a pool-mode carrier the
 * server retires).
 *
 * <p>Threading: the session's event loop only.
 */
final class SessionEnd {
    private static final Logger log = LoggerFactory.getLogger(MuxSession.class);

    private String reason;
    private boolean asked;
    private boolean peerMayClose;

    /** Records {@code why} unless a reason is known already. */
    void because(String why, boolean askedFor) {
        if (reason == null) {
            reason = why;
            asked = askedFor;
        }
    }

    /** A close by the peer is routine for this session: logged at INFO. */
    void peerMayClose() {
        peerMayClose = true;
    }

    /** Records what {@code cause}, seen in the pipeline, says. */
    void failed(Throwable cause) {
        because(cause instanceof ProtocolException ? "protocol error: " + cause.getMessage()
                : cause instanceof IOException ? "connection error: " + cause.getMessage() : cause.toString(), false);
    }

    /**
     * One line per session end, on both sides: why, and how many streams it cut. A connection
     * that never completed login is not a session yet: the login stage logs its own outcome.
     */
    void log(Channel channel, boolean started, boolean server, int openStreams) {
        String why = reason != null ? reason : "the peer closed the connection";
        if (!started) {
            log.debug("{} closed before login completed: {}", channel, why);
        } else if (asked || (reason == null && (server || peerMayClose))) {
            log.info("{} session closed: {} ({} open streams reset)", channel, why, openStreams);
        } else {
            log.warn("{} session closed: {} ({} open streams reset)", channel, why, openStreams);
        }
    }
}
