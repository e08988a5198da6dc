package dev.tunnel.server.vhost;

import dev.tunnel.protocol.FrameDecoder;
import dev.tunnel.protocol.FrameEncoder;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxSettings;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.relay.StreamRelay;
import dev.tunnel.server.proxy.AppConnection;
import dev.tunnel.server.proxy.StreamConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A vhost port on {@link EmbeddedChannel}s: public connections with the real pipeline, and a
 * server and a client mux session wired back to back, whose client accepts streams into
 * {@link App}s that record what arrives and answer what a test tells them to. Everything runs on
 * the test thread; {@link #shuttle()} moves bytes until nothing moves.
 */
final class VhostHarness implements AutoCloseable {
    final RouteTable<HttpRoute> httpRoutes = new RouteTable<>();
    final RouteTable<VhostTarget> httpsRoutes = new RouteTable<>();
    final VhostSettings settings;
    final EmbeddedChannel serverSession;
    final EmbeddedChannel clientSession;
    final MuxSession server;
    final List<App> apps = new ArrayList<>();
    final List<EmbeddedChannel> publicChannels = new ArrayList<>();
    /** The public channel the test talks on now. */
    private EmbeddedChannel active;

    VhostHarness() {
        this(new ErrorPages(null), 60);
    }

    VhostHarness(ErrorPages pages, int responseTimeoutSeconds) {
        settings = new VhostSettings(httpRoutes, httpsRoutes, pages, responseTimeoutSeconds, 60, 60,
                new VhostSettings.Counters());
        server = new MuxSession(true, MuxSettings.defaults(), null);
        MuxSession client = new MuxSession(false, MuxSettings.defaults(),
                (stream, proxyId, source) -> apps.add(new App(stream, proxyId, source)));
        serverSession = new EmbeddedChannel(new FrameDecoder(), new FrameEncoder(), server);
        clientSession = new EmbeddedChannel(new FrameDecoder(), new FrameEncoder(), client);
        server.start(MuxSettings.defaults().initialWindow());
        client.start(MuxSettings.defaults().initialWindow());
    }

    /** Idle connections each proxy created from now on keeps. */
    int maxIdle = IdleUpstreams.MAX_IDLE;
    /** Whether proxies admit public connections; each admission is counted. */
    boolean admitting = true;
    int admissions;

    /**
     * A proxy whose streams carry its id, opened on whatever loop the public channel is on; its
     * idle connections expire by the server session's clock.
     */
    VhostTarget target(String name, int proxyId) {
        IdleUpstreams idle = new IdleUpstreams(serverSession.eventLoop(), maxIdle, IdleUpstreams.IDLE_TIMEOUT_SECONDS);
        return new VhostTarget() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public EventLoop eventLoop() {
                return active.eventLoop(); // each EmbeddedChannel has its own loop: no move in these tests
            }

            @Override
            public boolean admit(Channel publicChannel) {
                admissions++;
                return admitting;
            }

            @Override
            public void open(Channel publicChannel, Consumer<AppConnection> opened) {
                MuxStream stream = server.openStream(proxyId, String.valueOf(publicChannel.remoteAddress()));
                // each EmbeddedChannel has a loop of its own: a stream parked by one channel and
                // taken by another must not look like one on another loop (that would move it)
                opened.accept(new StreamConnection(stream, null) {
                    @Override
                    public EventLoop eventLoop() {
                        return active.eventLoop();
                    }
                });
            }

            @Override
            public IdleUpstreams idle() {
                return idle;
            }

            @Override
            public dev.tunnel.protocol.relay.RelayCounter traffic() {
                return dev.tunnel.protocol.relay.RelayCounter.NONE;
            }

            @Override
            public void carry(Channel publicConn, ByteBuf firstBytes) { // as the mux link does
                publicConn.pipeline().addLast(new StreamRelay(server.openStream(proxyId,
                        String.valueOf(publicConn.remoteAddress()))));
                publicConn.pipeline().fireChannelActive();
                publicConn.pipeline().fireChannelRead(firstBytes).fireChannelReadComplete();
            }
        };
    }

    /** Registers an http proxy without auth or rewrites. */
    VhostTarget http(String domain, String location, String name, int proxyId) {
        VhostTarget t = target(name, proxyId);
        httpRoutes.add(domain, location, "", name, new HttpRoute(t, "", "", "", Map.of(), Map.of()));
        return t;
    }

    /** Whether plain request heads are read by the scan ({@link PlainRequestHead}) rather than the decoder. */
    boolean scanPlainHeads = true;

    EmbeddedChannel newHttpConnection() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime(); // timeouts run when a test advances the clock
        publicChannels.add(ch);
        active = ch;
        HttpVhostInitializer.addHandlers(ch.pipeline(), settings, "http", null, scanPlainHeads);
        return ch;
    }

    EmbeddedChannel newTlsConnection() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        publicChannels.add(ch);
        active = ch;
        ch.pipeline().addLast(new SniRouter(settings));
        return ch;
    }

    /** Sends text from the visitor on {@code ch}, then moves everything. */
    void send(EmbeddedChannel ch, String text) {
        active = ch;
        ch.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
        shuttle();
    }

    /** What the visitor on {@code ch} received since the last call. */
    static String received(EmbeddedChannel ch) {
        ch.flush();
        StringBuilder out = new StringBuilder();
        Object m;
        while ((m = ch.readOutbound()) != null) {
            ByteBuf buf = (ByteBuf) m;
            out.append(buf.toString(StandardCharsets.ISO_8859_1));
            buf.release();
        }
        return out.toString();
    }

    void shuttle() {
        boolean moved;
        do {
            runTasks();
            moved = move(serverSession, clientSession) | move(clientSession, serverSession);
            if (!moved) { // a task on a public channel's loop may have queued a flush on the session's
                runTasks();
                moved = move(serverSession, clientSession) | move(clientSession, serverSession);
            }
        } while (moved);
    }

    private void runTasks() {
        serverSession.runPendingTasks();
        clientSession.runPendingTasks();
        publicChannels.forEach(EmbeddedChannel::runPendingTasks);
    }

    private static boolean move(EmbeddedChannel from, EmbeddedChannel to) {
        boolean any = false;
        Object m;
        while ((m = from.readOutbound()) != null) {
            to.writeInbound(m);
            any = true;
        }
        return any;
    }

    @Override
    public void close() {
        publicChannels.forEach(EmbeddedChannel::finishAndReleaseAll);
        shuttle();
        apps.forEach(App::releaseAll);
        serverSession.finishAndReleaseAll();
        clientSession.finishAndReleaseAll();
    }

    /** A local app behind one accepted stream: keeps what arrives, answers when told. */
    final class App implements StreamHandler {
        final MuxStream stream;
        final int proxyId;
        final String source;
        final StringBuilder received = new StringBuilder();
        boolean fin;
        boolean reset;

        App(MuxStream stream, int proxyId, String source) {
            this.stream = stream;
            this.proxyId = proxyId;
            this.source = source;
            stream.handler(this);
        }

        void reply(String text) {
            stream.write(Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
            shuttle();
        }

        void finish() {
            stream.shutdownOutput();
            shuttle();
        }

        @Override
        public void onData(ByteBuf data) {
            received.append(data.toString(StandardCharsets.ISO_8859_1));
            stream.consumed(data.readableBytes());
            data.release();
        }

        @Override
        public void onFin() {
            fin = true;
        }

        @Override
        public void onReset(int code) {
            reset = true;
        }

        @Override
        public void onWritable() {
        }

        void releaseAll() {
        }
    }
}
