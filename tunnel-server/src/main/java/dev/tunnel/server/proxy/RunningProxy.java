package dev.tunnel.server.proxy;

import dev.tunnel.protocol.Options;
import io.netty.util.concurrent.Future;

/** A started proxy's public side, as its type runs it. Methods run on the session's event loop. */
public interface RunningProxy {

    /** The public port opened for it, 0 for a type without one of its own. */
    int remotePort();

    /** What else the client is told in {@code NEW_PROXY_RESULT} (e.g. the URLs it answers on). */
    default Options details() {
        return Options.EMPTY;
    }

    /**
     * Stops taking public traffic: closes the listener or drops the routes, releases the ports.
     * Connections in flight go on. Completes once the public side is closed.
     */
    Future<?> close();
}
