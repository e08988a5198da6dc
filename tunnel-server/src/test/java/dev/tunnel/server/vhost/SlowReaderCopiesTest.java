package dev.tunnel.server.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SlowReaderCopiesTest {

    @Test
    void aSocketThatKeepsUpGetsTheSliceItself() {
        EmbeddedChannel socket = new EmbeddedChannel();
        ByteBuf parent = Unpooled.buffer(64 * 1024).writeZero(64 * 1024);
        ByteBuf slice = parent.retainedSlice(0, 8192);
        assertThat(SlowReaderCopies.forWrite(socket, slice)).isSameAs(slice);
        slice.release();
        assertThat(parent.release()).isTrue();
        socket.finishAndReleaseAll();
    }

    @Test
    void aBackedUpSocketGetsACopyAndTheParentIsFreed() {
        EmbeddedChannel socket = new EmbeddedChannel();
        socket.write(Unpooled.buffer(10).writeZero(10)); // written, not flushed: pending
        ByteBuf parent = Unpooled.buffer(64 * 1024).writeZero(64 * 1024);
        ByteBuf slice = parent.retainedSlice(0, 8192);
        ByteBuf written = SlowReaderCopies.forWrite(socket, slice);
        assertThat(written).isNotSameAs(slice);
        assertThat(written.readableBytes()).isEqualTo(8192);
        assertThat(parent.release()).as("the slice let go of its parent").isTrue();
        written.release();

        ByteBuf small = Unpooled.buffer(100).writeZero(100);
        assertThat(SlowReaderCopies.forWrite(socket, small)).as("small: not worth a copy").isSameAs(small);
        small.release();
        socket.finishAndReleaseAll();
    }
}
