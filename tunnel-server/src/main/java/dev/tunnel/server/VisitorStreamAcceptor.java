package dev.tunnel.server;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamAcceptor;
import dev.tunnel.protocol.visitor.VisitorGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts the streams a client opens on the server: they are visitor streams (a client opens no
 * other kind), each read by a {@link VisitorGate} and routed by the session's
 * {@link VisitorRouter}. Before login there is no router, and a stream is refused (the mux
 * refuses stream frames before login anyway).
 *
 * <p>Threading: the connection's event loop.
 */
final class VisitorStreamAcceptor implements StreamAcceptor {
    private static final Logger log = LoggerFactory.getLogger(VisitorStreamAcceptor.class);

    private VisitorRouter router;

    /** Set once the client has logged in. */
    void router(VisitorRouter router) {
        this.router = router;
    }

    @Override
    public void accept(MuxStream stream, int proxyId, String source) {
        if (router == null) {
            log.debug("{} opened before login: refused", stream);
            stream.reset(ResetCode.REFUSED);
            return;
        }
        new VisitorGate(stream, router.eventLoop(), router);
    }
}
