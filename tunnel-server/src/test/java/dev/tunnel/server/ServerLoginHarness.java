package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.FrameDecoder;
import dev.tunnel.protocol.FrameEncoder;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.mux.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxSettings;
import dev.tunnel.server.config.ServerConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * The server's tunnel-connection pipeline (without TLS) on {@link EmbeddedChannel}s sharing one
 * {@link ServerContext}, for login tests: feed bytes in, read the control messages out.
 */
final class ServerLoginHarness {
    static final String TOKEN = "harness-token-5d2e";
    static final ChannelBinding OWN = ChannelBinding.parse("sha256:" + "AB".repeat(32));

    final ServerContext context;

    ServerLoginHarness() {
        ServerConfig config = new ServerConfig();
        config.auth.token = TOKEN;
        Credentials credentials = new Credentials(config);
        context = new ServerContext(TOKEN, true, new PortRegistry(), "127.0.0.1", "test", 10, credentials,
                new LoginAuthenticator(credentials, OWN), new LoginThrottle(0, 0, System::currentTimeMillis), 0,
                new ServerContext.PoolSettings(5, 10, 30), new SessionRegistry(),
                new io.netty.channel.group.DefaultChannelGroup(io.netty.util.concurrent.GlobalEventExecutor.INSTANCE),
                dev.tunnel.server.proxy.ServerProxyTypes.standard(), new LoginThrottle(0, 0, System::currentTimeMillis),
                new dev.tunnel.server.web.ServerStats(java.time.Clock.systemDefaultZone()), ConnectionCaps.none(), true,
                dev.tunnel.server.plugin.ServerPlugins.NONE);
    }

    /** A new connection; handlers are in place before channelActive, as with a real socket. */
    EmbeddedChannel connection() {
        EmbeddedChannel ch = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel c) {
                MuxSession mux = new MuxSession(true, new MuxSettings(262_144, 16_777_216), null);
                Heartbeat heartbeat = new Heartbeat(mux, 30, 90);
                TunnelPipeline.addServerHandshake(c.pipeline());
                c.pipeline().addLast(TunnelPipeline.CONTROL,
                        new ServerControlHandler(context, mux, heartbeat, 90, new ServerNonce()));
            }
        });
        ch.freezeTime();
        return ch;
    }

    /**
     * A new connection on a server that offers the express lane: a {@link LaneAcceptor} shares
     * the connection's challenge with the control handler, as {@code ServerChannelInitializer} sets it up.
     */
    EmbeddedChannel laneConnection() {
        EmbeddedChannel ch = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel c) {
                MuxSession mux = new MuxSession(true, new MuxSettings(262_144, 16_777_216), null);
                Heartbeat heartbeat = new Heartbeat(mux, 30, 90);
                ServerNonce nonce = new ServerNonce();
                TunnelPipeline.addServerHandshake(c.pipeline());
                c.pipeline().addLast(TunnelPipeline.LANE_ACCEPTOR, new LaneAcceptor(context, nonce, 90));
                c.pipeline().addLast(TunnelPipeline.CONTROL,
                        new ServerControlHandler(context, mux, heartbeat, 90, nonce, null, true));
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
        EmbeddedChannel encoder = new EmbeddedChannel(new FrameEncoder());
        ByteBuf all = Unpooled.buffer();
        try {
            for (ControlMessage m : messages) {
                encoder.writeOutbound(new ControlFrame(m));
            }
            ByteBuf b;
            while ((b = encoder.readOutbound()) != null) {
                all.writeBytes(b);
                b.release();
            }
            byte[] out = new byte[all.readableBytes()];
            all.readBytes(out);
            return out;
        } finally {
            all.release();
            encoder.finishAndReleaseAll();
        }
    }

    /** The control messages the server wrote so far (after its 6-byte preface). */
    static List<ControlMessage> received(EmbeddedChannel ch, boolean skipPreface) {
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder());
        List<ControlMessage> out = new ArrayList<>();
        boolean skip = skipPreface;
        Object o;
        while ((o = ch.readOutbound()) != null) {
            ByteBuf b = (ByteBuf) o;
            if (skip) {
                b.skipBytes(6);
                skip = false;
            }
            decoder.writeInbound(b);
        }
        Object f;
        while ((f = decoder.readInbound()) != null) {
            if (f instanceof ControlFrame c) {
                out.add(c.message());
            }
            ReferenceCountUtil.release(f);
        }
        decoder.finishAndReleaseAll();
        return out;
    }

    static boolean isFrame(Object o) {
        return o instanceof Frame;
    }
}
