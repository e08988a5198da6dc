package dev.tunnel.protocol.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class LastWritesTest {

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    @Test
    void aFrameThatATaskQueuedBeforeTheCallWritesGoesOutBeforeTheClose() {
        EmbeddedChannel ch = new EmbeddedChannel();
        // Like Netty's channelInactive of a relayed socket: a task, queued before the stop, whose
        // handler writes the stream's FIN from a task of its own (flushLater).
        ch.eventLoop().execute(() -> ch.eventLoop().execute(() -> ch.write(text("FIN"))));

        ChannelFuture closed = LastWrites.flushThenClose(ch, 1000);
        ch.runPendingTasks();

        assertThat(closed.isDone()).isTrue();
        ByteBuf out = ch.readOutbound();
        assertThat(out).as("the FIN was written before the close").isNotNull();
        assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("FIN");
        out.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void anInactiveChannelIsJustClosed() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.close();
        assertThat(LastWrites.flushThenClose(ch, 1000).isDone()).isTrue();
        ch.runPendingTasks();
        ch.finishAndReleaseAll();
    }
}
