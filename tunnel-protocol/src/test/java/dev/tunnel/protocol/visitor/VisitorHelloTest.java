package dev.tunnel.protocol.visitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.protocol.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The hello round-trips, and malformed or oversize ones are protocol errors. */
@Timeout(20)
class VisitorHelloTest {

    @Test
    void roundTrips() {
        VisitorHello hello = new VisitorHello("stcp", "alice", "ssh", "ab".repeat(32), "cd".repeat(32));
        ByteBuf buf = hello.encode(ByteBufAllocator.DEFAULT);
        buf.writeByte(7); // the connection's first byte behind it
        assertThat(VisitorHello.encodedLength(buf)).isEqualTo(buf.readableBytes() - 1);
        assertThat(VisitorHello.decode(buf)).isEqualTo(hello);
        assertThat(buf.readByte()).isEqualTo((byte) 7);
        buf.release();
    }

    @Test
    void anIncompleteLengthIsNotAnError() {
        ByteBuf one = Unpooled.wrappedBuffer(new byte[] {0});
        assertThat(VisitorHello.encodedLength(one)).isEqualTo(-1);
        one.release();
    }

    @Test
    void anOversizeHelloIsRefusedFromItsLength() {
        ByteBuf buf = Unpooled.buffer().writeShort(5000);
        assertThatThrownBy(() -> VisitorHello.encodedLength(buf)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("exceeds maximum 1024");
        buf.release();
    }

    @Test
    void fuzzedHellosAreProtocolErrorsOrValidNeverSomethingElse() {
        Random random = new Random(7);
        for (int i = 0; i < 5000; i++) {
            byte[] body = new byte[random.nextInt(60)];
            random.nextBytes(body);
            if (body.length > 0 && random.nextBoolean()) {
                body[0] = 1;
            }
            ByteBuf buf = Unpooled.buffer().writeShort(body.length).writeBytes(body);
            try {
                VisitorHello.decode(buf);
            } catch (ProtocolException expected) {
                // refused, as it should be
            } finally {
                buf.release();
            }
        }
    }
}
