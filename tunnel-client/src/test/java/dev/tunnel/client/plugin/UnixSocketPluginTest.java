package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.PluginConfig;
import dev.tunnel.protocol.transport.Transports;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The unix_domain_socket plugin's dialer against a real Unix socket, with the client's transport. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UnixSocketPluginTest {
    private static EventLoopGroup group;

    @TempDir
    Path dir;

    @BeforeAll
    static void startGroup() {
        group = Transports.newGroup(1, "uds-test");
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static LocalPlugin plugin(Path socket) throws InterruptedException {
        PluginConfig config = new PluginConfig();
        config.type = "unix_domain_socket";
        config.unixPath = socket.toString();
        return LocalPlugins.start(config, group);
    }

    /** Writes {@code ping}, reads until the peer closes; completes with what it read. */
    private static final class Exchange extends ChannelInboundHandlerAdapter {
        final CompletableFuture<String> answer = new CompletableFuture<>();
        private final StringBuilder read = new StringBuilder();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII));
            ctx.read();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf data = (ByteBuf) msg;
            read.append(data.toString(StandardCharsets.US_ASCII));
            data.release();
            ctx.read();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof ChannelInputShutdownEvent) { // the dialer allows half-closure, as relays need
                answer.complete(read.toString());
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            answer.complete(read.toString());
        }
    }

    @Test
    void eachConnectionReachesTheSocket() throws Exception {
        Path socket = dir.resolve("app.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            Thread app = new Thread(() -> {
                try (SocketChannel conn = server.accept()) {
                    ByteBuffer buf = ByteBuffer.allocate(4);
                    while (buf.hasRemaining() && conn.read(buf) >= 0) {
                        // read "ping"
                    }
                    conn.write(ByteBuffer.wrap(("pong:" + new String(buf.array(), StandardCharsets.US_ASCII))
                            .getBytes(StandardCharsets.US_ASCII)));
                } catch (IOException ignored) {
                    // the assertion below reports it
                }
            });
            app.start();
            LocalPlugin plugin = plugin(socket);
            Exchange exchange = new Exchange();
            ChannelFuture connected = plugin.dialer().connect(group.next(), exchange);
            assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(connected.isSuccess()).as("connected: %s", connected.cause()).isTrue();
            assertThat(exchange.answer.get(10, TimeUnit.SECONDS)).isEqualTo("pong:ping");
            assertThat(plugin.dialer().describe()).isEqualTo("unix:" + socket);
            app.join(10_000);
        }
    }

    @Test
    void aMissingSocketFailsTheConnectionNamingThePath() throws Exception {
        Path missing = dir.resolve("missing.sock");
        LocalPlugin plugin = plugin(missing);
        ChannelFuture connected = plugin.dialer().connect(group.next(), new Exchange());
        assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(connected.isSuccess()).isFalse();
        assertThat(plugin.dialer().describe() + ": " + dev.tunnel.protocol.transport.Failures.describe(connected.cause()))
                .contains(missing.toString()).containsIgnoringCase("no such file");
    }
}
