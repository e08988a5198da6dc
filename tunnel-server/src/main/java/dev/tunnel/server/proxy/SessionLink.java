package dev.tunnel.server.proxy;

import dev.tunnel.protocol.mux.MuxStream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.function.Consumer;

/**
 * How public connections reach one client, whatever the transport mode: a stream on the
 * session's mux connection ({@code transport.tcpMux = true}), or a pooled work connection of
 * its own (pool mode). A proxy type hands each public connection here and never asks which mode
 * the session is in. Either way the public connection's first bytes go out with the open,
 * without waiting for the client, and every relayed socket gets the same options
 * ({@code RelayedSockets}).
 *
 * <p>Threading: call on {@link #eventLoop()}. A public connection may end up on another loop
 * (pool mode registers it on the loop of its work connection, so its pipe never crosses threads).
 */
public interface SessionLink {

    /** The session's event loop: the one its control connection and listeners run on. */
    EventLoop eventLoop();

    /** The session's control connection (for log lines). */
    Channel control();

    /** Whether the session can still carry connections. */
    boolean isActive();

    /** Public connections this session carries now (streams in mux mode, pipes in pool mode). */
    int openCount();

    /**
     * Carries {@code child}, a public connection just accepted and not yet registered (a
     * listener's child, taken from the server channel's pipeline before the bootstrap registers
     * it), for {@code proxy}: registers it where its relay runs, then relays it.
     */
    void accept(Channel child, ProxyRef proxy);

    /**
     * Carries {@code publicConn}, already registered on any loop with {@code AUTO_READ} off and
     * nothing left in its pipeline, for {@code proxy}; {@code firstBytes} (may be null) are what
     * the caller already read from it (a shared listener's HTTP head or TLS ClientHello), sent
     * first. Takes ownership of {@code firstBytes}.
     */
    void carry(Channel publicConn, ByteBuf firstBytes, ProxyRef proxy);

    /**
     * As {@link #accept}, for a listener's connection already registered because it was read
     * first on a port that takes the PROXY protocol ({@code proxyProtocolTrustedIPs}): a trusted
     * balancer's header, or a direct visitor's first bytes checked for a forged one;
     * {@code firstBytes} (may be null) are those behind the header, or those first bytes. Held to the same checks as
     * {@link #accept} (NewUserConn plugins), then {@linkplain #carry carried}.
     */
    default void acceptAfterHeader(Channel publicConn, ByteBuf firstBytes, ProxyRef proxy) {
        carry(publicConn, firstBytes, proxy);
    }

    /**
     * Opens a bare stream for {@code proxy} to carry something other than a socket: the
     * datagrams of one UDP association, or a visitor's stream spliced to it. Mux mode only: null
     * in pool mode (no streams), when the session is closing, or beyond
     * {@code transport.maxStreamsPerClient} (the refusal logged once per burst).
     *
     * @param source who the stream is for, for the client's logs
     */
    MuxStream openStream(ProxyRef proxy, String source);

    /**
     * Whether {@link #openStream(ProxyRef, String)} works: in mux mode a stream can be opened and
     * used on the caller's own terms (UDP associations, visitor splices); a pool-mode work
     * connection is a socket's pipe and cannot.
     */
    boolean carriesStreams();

    /**
     * Pool mode: a work connection of its own for {@code proxy}, for a protocol the caller puts on
     * it (a udp proxy's carrier session), while {@code owner} (the proxy's socket) is open.
     * {@code started} gets it on {@link #eventLoop()}, {@code START_WORK_CONN} sent, {@code AUTO_READ}
     * off, nothing read since and nothing left in its pipeline but TLS and {@code workConn}; or null
     * when none came within {@code userConnTimeout}, the session ended or the move to this loop
     * failed (logged). Mux mode has no work connections: null at once.
     */
    default void openWorkConnection(Channel owner, ProxyRef proxy, Consumer<Channel> started) {
        started.accept(null);
    }

    /**
     * Admits {@code publicConn} (registered on {@link #eventLoop()}) for {@code proxy} against the
     * session's limits and the proxy's connection caps, and tracks it as one of the proxy's public
     * connections until it closes; false when refused (logged). The vhost calls it once per
     * public connection and proxy, before {@link #open} or reusing an idle connection.
     */
    boolean admit(Channel publicConn, ProxyRef proxy);

    /**
     * Opens a connection to {@code proxy}'s local app for {@code publicConn} (registered on
     * {@link #eventLoop()}, {@linkplain #admit admitted}), that the caller writes and reads itself (the vhost's requests, one by one), with the PROXY protocol header already
     * written when the proxy asks for one: a stream in mux mode, a work connection of its own in
     * pool mode. {@code opened} gets it, or null when refused (logged): at once in mux mode; in
     * pool mode once a work connection is started, on that connection's loop, where the caller
     * must move {@code publicConn} before using it (or on this loop with null when none came
     * within {@code userConnTimeout}).
     */
    void open(Channel publicConn, ProxyRef proxy, Consumer<AppConnection> opened);
}
