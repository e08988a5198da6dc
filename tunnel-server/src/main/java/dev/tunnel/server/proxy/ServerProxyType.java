package dev.tunnel.server.proxy;

import dev.tunnel.config.ValueChecks;
import dev.tunnel.server.config.ServerConfig;
import io.netty.util.concurrent.Future;

/**
 * One proxy type on the server ({@code tcp}, {@code http}, {@code udp}...): how a proxy of this
 * type takes public traffic and hands each public connection to its client's
 * {@link SessionLink}. The ways a type can do that:
 * <ul>
 *   <li>a public port of its own per proxy ({@code tcp}: {@link ProxySession#ports()}, then a
 *       listener whose accepted sockets go to {@link SessionLink#accept});</li>
 *   <li>one listener the type shares between every session, keyed by what the first bytes say
 *       (HTTP {@code Host}, TLS SNI): the type keeps the listener from {@link #open} to
 *       {@link #close} and a route per running proxy, and carries a routed socket with
 *       {@link SessionLink#carry} (its first bytes go with it);</li>
 *   <li>datagrams: a port of its own, each peer's datagrams framed over a stream;</li>
 *   <li>no public port at all: a stream the server splices to another client's stream (stcp
 *       visitors), found by name in a table the type keeps.</li>
 * </ul>
 *
 * <p>A type is registered once in {@link ServerProxyTypes#standard()}; its name is the
 * {@code type} key of a client's {@code [[proxies]]} entry, and {@code proxy.NAME} is the
 * capability the server announces at login.
 *
 * <p>Threading: {@link #start} runs on the session's event loop, and the future it returns
 * completes there or is listened to from there; {@link #open}, {@link #close} and
 * {@link #validate} run on the thread that starts, stops or checks the server.
 */
public interface ServerProxyType {

    /** The type's name, as in {@code type = "tcp"}. */
    String name();

    /**
     * Starts proxy {@code request} for {@code session}: binds or routes its public side. The
     * future completes with the running proxy, or fails with a {@link ProxyRefusedException}
     * whose message the client shows the user (name the key, the value and what is allowed).
     */
    Future<RunningProxy> start(ProxyRequest request, ProxySession session);

    /** Checks the server config keys this type reads, adding every problem; nothing by default. */
    default void validate(ServerConfig config, ValueChecks checks) {
    }

    /** Called once when the server starts, before any client logs in: open shared listeners here. */
    default void open(ServerEnvironment environment) throws Exception {
    }

    /** Called once when the server stops, or when it fails to start (then perhaps without {@link #open}): close shared listeners. */
    default void close() {
    }
}
