package dev.tunnel.server;

import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.PakeMode;
import dev.tunnel.protocol.auth.PakeWorker;
import dev.tunnel.protocol.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxSettings;
import dev.tunnel.protocol.testing.ControlWire;
import dev.tunnel.server.config.ServerConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.function.Function;

/**
 * The server's tunnel-connection pipeline (without TLS) on {@link EmbeddedChannel}s sharing one
 * {@link ServerContext}, for login tests: feed bytes in, read the control messages out.
 */
final class ServerLoginHarness {
    static final String TOKEN = "harness-token-5d2e";
    static final ChannelBinding OWN = ChannelBinding.parse("sha256:" + "AB".repeat(32));

    final ServerContext context;
    /** Shared by this harness's connections, as one server's are: one pool of precomputed exponents. */
    private final PakeWorker pakeWorker = PakeWorker.inline();

    ServerLoginHarness() {
        this(true);
    }

    /** @param tcpMux false: a pool-mode server ({@link #workConnection}) */
    ServerLoginHarness(boolean tcpMux) {
        this(tcpMux, withToken());
    }

    /** A server with {@code config}'s credentials and {@code auth.pake}. */
    ServerLoginHarness(ServerConfig config) {
        this(true, config);
    }

    private static ServerConfig withToken() {
        ServerConfig config = new ServerConfig();
        config.auth.token = TOKEN;
        return config;
    }

    private ServerLoginHarness(boolean tcpMux, ServerConfig config) {
        Credentials credentials = new Credentials(config, pakeWorker);
        context = new ServerContext(TOKEN, tcpMux, new PortRegistry(), "127.0.0.1", "test", 10, credentials,
                new LoginAuthenticator(credentials, OWN, PakeMode.of(config.auth.pake)),
                new LoginThrottle(0, 0, System::currentTimeMillis), 0,
                new ServerContext.PoolSettings(5, 10, 30), new SessionRegistry(),
                new io.netty.channel.group.DefaultChannelGroup(io.netty.util.concurrent.GlobalEventExecutor.INSTANCE),
                dev.tunnel.server.proxy.ServerProxyTypes.standard(), new LoginThrottle(0, 0, System::currentTimeMillis),
                new dev.tunnel.server.web.ServerStats(java.time.Clock.systemDefaultZone()), ConnectionCaps.none(), true,
                dev.tunnel.server.plugin.ServerPlugins.NONE, new ProxyNames(0));
    }

    /** A new connection; handlers are in place before channelActive, as with a real socket. */
    EmbeddedChannel connection() {
        return connection(null, null);
    }

    /**
     * A new connection on a pool-mode server: a {@link WorkConnAcceptor} shares the connection's
     * challenge with the control handler, as {@code ServerChannelInitializer} sets it up.
     */
    EmbeddedChannel workConnection() {
        return connection(TunnelPipeline.WORK_CONN_ACCEPTOR, nonce -> new WorkConnAcceptor(context, nonce));
    }

    /** The handshake handlers, {@code acceptor} (if any) and the control handler, sharing one challenge. */
    private EmbeddedChannel connection(String acceptorName, Function<ServerNonce, ChannelHandler> acceptor) {
        EmbeddedChannel ch = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel c) {
                MuxSession mux = new MuxSession(true, new MuxSettings(262_144, 16_777_216), null);
                Heartbeat heartbeat = new Heartbeat(mux, 30, 90);
                ServerNonce nonce = new ServerNonce();
                TunnelPipeline.addServerHandshake(c.pipeline());
                if (context.authenticator().offersPake()) {
                    c.pipeline().addLast(TunnelPipeline.PAKE, new ServerPakeHandler(context.credentials(), nonce, pakeWorker));
                }
                if (acceptor != null) {
                    c.pipeline().addLast(acceptorName, acceptor.apply(nonce));
                }
                c.pipeline().addLast(TunnelPipeline.CONTROL,
                        new ServerControlHandler(context, mux, heartbeat, 90, nonce, null));
            }
        });
        ch.freezeTime();
        return ch;
    }

    /** Writes bytes in; exceptions the pipeline lets through are the test's failure. */
    static void send(EmbeddedChannel ch, byte[] bytes) {
        if (ch.isOpen()) {
            ch.writeInbound(Unpooled.wrappedBuffer(bytes));
        }
    }

    static byte[] encode(ControlMessage... messages) {
        ByteBuf all = ControlWire.encode(messages);
        try {
            byte[] out = new byte[all.readableBytes()];
            all.readBytes(out);
            return out;
        } finally {
            all.release();
        }
    }

    /** The control messages the server wrote so far (after its 6-byte preface). */
    static List<ControlMessage> received(EmbeddedChannel ch, boolean skipPreface) {
        return ControlWire.written(ch, skipPreface);
    }

    static boolean isFrame(Object o) {
        return o instanceof Frame;
    }
}
