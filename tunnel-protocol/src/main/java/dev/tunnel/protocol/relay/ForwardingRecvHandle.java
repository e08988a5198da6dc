package dev.tunnel.protocol.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator.ExtendedHandle;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * A read-sizing handle that forwards every call to {@code inner}; subclasses override the one or
 * two decisions they change (how much to read, whether to keep reading) and keep the rest of
 * Netty's adaptive sizing.
 */
public abstract class ForwardingRecvHandle implements ExtendedHandle {
    protected final ExtendedHandle inner;

    protected ForwardingRecvHandle(ExtendedHandle inner) {
        this.inner = inner;
    }

    @Override
    public ByteBuf allocate(ByteBufAllocator alloc) {
        return inner.allocate(alloc);
    }

    @Override
    public int guess() {
        return inner.guess();
    }

    @Override
    public void reset(ChannelConfig config) {
        inner.reset(config);
    }

    @Override
    public void incMessagesRead(int numMessages) {
        inner.incMessagesRead(numMessages);
    }

    @Override
    public void lastBytesRead(int bytes) {
        inner.lastBytesRead(bytes);
    }

    @Override
    public int lastBytesRead() {
        return inner.lastBytesRead();
    }

    @Override
    public void attemptedBytesRead(int bytes) {
        inner.attemptedBytesRead(bytes);
    }

    @Override
    public int attemptedBytesRead() {
        return inner.attemptedBytesRead();
    }

    @Override
    public boolean continueReading() {
        return inner.continueReading();
    }

    @Override
    public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
        return inner.continueReading(maybeMoreDataSupplier);
    }

    @Override
    public void readComplete() {
        inner.readComplete();
    }
}
