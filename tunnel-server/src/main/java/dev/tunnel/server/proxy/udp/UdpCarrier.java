package dev.tunnel.server.proxy.udp;

import dev.tunnel.protocol.udp.CarrierSession;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.SessionLink;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pool mode's carrier of one udp proxy's associations: one work connection at a time, taken from
 * the session's pool when the proxy starts and again whenever it drops (as frp does), with a
 * private mux session on it ({@link CarrierSession}) whose streams are the associations. While
 * none is up, a new peer gets no association (its datagrams are dropped and counted as
 * {@code no_association}); associations of a lost connection end with it, and the peer's next
 * datagram opens one on the next.
 *
 * <h3>Retries</h3>
 * A connection that dropped after {@value #STEADY_SECONDS} s or more is replaced at once; one
 * that did not come ({@code userConnTimeout}) or lived shorter (the client refused it) is asked
 * for again after {@value #RETRY_SECONDS} s, so a client that cannot serve the proxy costs one
 * request a second, not a loop.
 *
 * <h3>Closing</h3>
 * {@link #close()} (the proxy closes) closes the work connection; the client's end of every
 * association closes with it.
 *
 * <p>Threading: the session loop, where the proxy's socket lives; the work connection is moved
 * there before its session starts ({@link SessionLink#openWorkConnection}).
 */
final class UdpCarrier {
    private static final Logger log = LoggerFactory.getLogger(UdpCarrier.class);
    static final int RETRY_SECONDS = 1;
    static final int STEADY_SECONDS = 5;

    private final SessionLink link;
    private final ProxyRef proxy;
    private final Channel socket;
    private Channel work;
    private MuxSession mux;
    private long startedNanos;
    private boolean requested;
    private boolean closed;

    /** @param socket the proxy's UDP socket: the work connection is asked for while it is open */
    UdpCarrier(SessionLink link, ProxyRef proxy, Channel socket) {
        this.link = link;
        this.proxy = proxy;
        this.socket = socket;
    }

    /** Asks for the first work connection. */
    void start() {
        request();
    }

    /** A stream for {@code peer}'s association on the current work connection, or null while there is none. */
    MuxStream open(InetSocketAddress peer) {
        if (mux == null || !work.isActive()) {
            return null;
        }
        return mux.openStream(proxy.id(), String.valueOf(peer));
    }

    /** The work connection carrying the associations now, or null. */
    Channel workConnection() {
        return work;
    }

    private void request() {
        if (closed || requested || !socket.isOpen()) {
            return;
        }
        requested = true;
        link.openWorkConnection(socket, proxy, this::started);
    }

    private void started(Channel started) {
        requested = false;
        if (started == null) {
            retryLater();
            return;
        }
        if (closed) {
            started.close();
            return;
        }
        work = started;
        startedNanos = System.nanoTime();
        mux = CarrierSession.install(started, true, null, () -> ended(started));
        log.debug("{} proxy [{}]: datagrams ride work connection {}", link.control(), proxy.name(), started);
    }

    private void ended(Channel ended) {
        if (work != ended) {
            return;
        }
        work = null;
        mux = null;
        if (closed) {
            return;
        }
        long lived = System.nanoTime() - startedNanos;
        log.info("{} proxy [{}]: work connection {} carrying its datagrams closed; taking another", link.control(),
                proxy.name(), ended);
        if (lived >= TimeUnit.SECONDS.toNanos(STEADY_SECONDS)) {
            request();
        } else {
            retryLater();
        }
    }

    private void retryLater() {
        if (!closed) {
            link.eventLoop().schedule(this::request, RETRY_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** The proxy closed: its work connection goes too. */
    void close() {
        closed = true;
        if (work != null) {
            work.close();
        }
    }
}
