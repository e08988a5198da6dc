package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.mux.StreamHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WorkConnectionTest {
    private final ReadCounter reads = new ReadCounter();
    private final EmbeddedChannel work = new EmbeddedChannel();
    private final Events events = new Events();

    WorkConnectionTest() {
        work.pipeline().addLast(reads);
        work.pipeline().addLast(TunnelPipeline.WORK_CONN, new ChannelInboundHandlerAdapter());
    }

    @AfterEach
    void close() {
        events.data.forEach(ByteBuf::release);
        work.finishAndReleaseAll();
    }

    @Test
    void bytesGoOutAndComeBackToTheHandler() {
        WorkConnection conn = WorkConnection.start(work);
        conn.handler(events);
        conn.write(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n", StandardCharsets.US_ASCII));
        ByteBuf out = work.readOutbound();
        assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("GET / HTTP/1.1\r\n\r\n");
        out.release();
        work.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 200 OK", StandardCharsets.US_ASCII));
        assertThat(events.data).hasSize(1);
        assertThat(events.data.get(0).toString(StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200 OK");
        assertThat(conn.isOpen()).isTrue();
    }

    @Test
    void theSocketIsReadAgainOnlyOnceEverythingDeliveredWasConsumed() {
        WorkConnection conn = WorkConnection.start(work);
        assertThat(work.config().isAutoRead()).isFalse();
        conn.handler(events);
        int afterStart = reads.count;
        assertThat(afterStart).isPositive();
        work.writeInbound(Unpooled.copiedBuffer("0123456789", StandardCharsets.US_ASCII));
        assertThat(reads.count).as("10 bytes not yet consumed").isEqualTo(afterStart);
        conn.consumed(4);
        assertThat(reads.count).isEqualTo(afterStart);
        conn.consumed(6);
        assertThat(reads.count).isEqualTo(afterStart + 1);
    }

    @Test
    void eofIsTheAppsFinAndACloseBeforeItAReset() {
        WorkConnection conn = WorkConnection.start(work);
        conn.handler(events);
        work.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        assertThat(events.fin).isTrue();
        assertThat(conn.isOpen()).isFalse();
        assertThat(events.reset).isFalse();

        EmbeddedChannel other = new EmbeddedChannel();
        other.pipeline().addLast(TunnelPipeline.WORK_CONN, new ChannelInboundHandlerAdapter());
        Events otherEvents = new Events();
        WorkConnection.start(other).handler(otherEvents);
        other.close();
        assertThat(otherEvents.reset).isTrue();
        assertThat(otherEvents.fin).isFalse();
    }

    @Test
    void whatHappensBeforeTheHandlerIsSetReachesItWhenSet() {
        WorkConnection conn = WorkConnection.start(work);
        work.close();
        conn.handler(events);
        assertThat(events.reset).isTrue();
    }

    @Test
    void aResetClosesTheWorkConnection() {
        WorkConnection conn = WorkConnection.start(work);
        conn.handler(events);
        conn.reset();
        assertThat(work.isActive()).isFalse();
        assertThat(conn.isOpen()).isFalse();
    }

    private static final class ReadCounter extends ChannelOutboundHandlerAdapter {
        int count;

        @Override
        public void read(ChannelHandlerContext ctx) {
            count++;
            ctx.read();
        }
    }

    private static final class Events implements StreamHandler {
        final List<ByteBuf> data = new ArrayList<>();
        boolean fin;
        boolean reset;

        @Override
        public void onData(ByteBuf bytes) {
            data.add(bytes);
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
    }
}
