package dev.tunnel.server.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Moving a live, accepted socket between the server's event loops (native transport when available). */
@Timeout(30)
class ChannelMoverTest {
    private final EventLoopGroup group = Transports.newGroup(2, "mover-test");

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aConnectionKeepsReadingAndWritingOnItsNewLoop() throws Exception {
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        Channel server = new ServerBootstrap().group(group).channel(Transports.serverChannel())
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            private boolean moved;

                            @Override
                            public void channelActive(ChannelHandlerContext ctx) {
                                ctx.read();
                            }

                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ByteBuf buf = (ByteBuf) msg;
                                String text = buf.toString(StandardCharsets.US_ASCII);
                                buf.release();
                                EventLoop here = ctx.channel().eventLoop();
                                seen.add(text + "@" + System.identityHashCode(here));
                                if (!moved) {
                                    moved = true;
                                    EventLoop other = next(here);
                                    ChannelMover.moveTo(ctx.channel(), other, () -> {
                                        assertThat(ctx.channel().eventLoop().inEventLoop()).isTrue();
                                        ctx.writeAndFlush(ctx.alloc().buffer().writeBytes("moved\n".getBytes()));
                                        ctx.read();
                                    });
                                } else {
                                    ctx.writeAndFlush(ctx.alloc().buffer().writeBytes(("echo " + text).getBytes()));
                                    ctx.read();
                                }
                            }
                        });
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort()));
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write("one".getBytes());
            String first = seen.poll(10, TimeUnit.SECONDS);
            assertThat(readLine(in)).isEqualTo("moved");
            out.write("two".getBytes());
            assertThat(new String(in.readNBytes(8), StandardCharsets.US_ASCII)).isEqualTo("echo two");
            String second = seen.poll(10, TimeUnit.SECONDS);
            assertThat(first).startsWith("one@");
            assertThat(second).startsWith("two@");
            assertThat(second.substring(4)).as("read on another loop").isNotEqualTo(first.substring(4));
        } finally {
            server.close().sync();
        }
    }

    private EventLoop next(EventLoop current) {
        for (int i = 0; i < 8; i++) {
            EventLoop l = group.next();
            if (l != current) {
                return l;
            }
        }
        throw new AssertionError("no second loop");
    }

    private static String readLine(InputStream in) throws Exception {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            sb.append((char) c);
        }
        return sb.toString();
    }
}
