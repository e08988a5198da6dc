package dev.tunnel.protocol.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import java.util.function.IntSupplier;

/**
 * Read sizing of a relayed socket: what {@code delegate} would read, but never more than the
 * stream's send credit (and at least {@link #MIN_READ}), so bytes read ahead of the credit, which
 * wait in the stream until a WINDOW_UPDATE, stay small however many streams wait.
 */
final class CreditBoundReads implements RecvByteBufAllocator {
    static final int MIN_READ = 2048;

    private final RecvByteBufAllocator delegate;
    private final IntSupplier credit;

    CreditBoundReads(RecvByteBufAllocator delegate, IntSupplier credit) {
        this.delegate = delegate;
        this.credit = credit;
    }

    @Override
    public Handle newHandle() {
        return new Bounded((ExtendedHandle) delegate.newHandle());
    }

    private final class Bounded extends ForwardingRecvHandle {
        Bounded(ExtendedHandle inner) {
            super(inner);
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            return alloc.ioBuffer(guess());
        }

        @Override
        public int guess() {
            return Math.min(inner.guess(), Math.max(MIN_READ, credit.getAsInt()));
        }
    }
}
