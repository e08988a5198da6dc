package dev.tunnel.protocol.transport;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollIoOps;

/**
 * Netty's {@link EpollIoHandler}, with one fix: a socket never asks epoll for "no events".
 *
 * <p>Why: in Netty 4.2.18, when a channel's interest set becomes empty (its input was shut down,
 * which is what a half-closed socket with {@code ALLOW_HALF_CLOSURE} does, and nothing is waiting
 * to be written), the registration removes the file descriptor from epoll but still believes it
 * is there. The next write that fills the socket's send buffer asks for {@code EPOLLOUT} with
 * {@code EPOLL_CTL_MOD}, which fails with {@code ENOENT}; Netty then shuts the channel's output
 * and the bytes still queued are lost, while the other side sees an ordinary end of stream. In
 * the tunnel that truncated replies to clients that had sent their FIN first (an echo or an
 * upload answered after the request). Here an empty interest set is submitted as
 * {@code EPOLLET} alone: the descriptor stays registered, reports nothing but an edge-triggered
 * hang-up or error, and later interest changes are plain modifications.
 *
 * <p>Threading: as the wrapped handler (each registration is used on its event loop).
 */
final class EpollKeepRegistered implements IoHandler {
    private final IoHandler delegate;

    private EpollKeepRegistered(IoHandler delegate) {
        this.delegate = delegate;
    }

    static IoHandlerFactory newFactory() {
        IoHandlerFactory epoll = EpollIoHandler.newFactory();
        return executor -> new EpollKeepRegistered(epoll.newHandler(executor));
    }

    @Override
    public void initialize() {
        delegate.initialize();
    }

    @Override
    public int run(IoHandlerContext context) {
        return delegate.run(context);
    }

    @Override
    public void prepareToDestroy() {
        delegate.prepareToDestroy();
    }

    @Override
    public void destroy() {
        delegate.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        return new Registration(delegate.register(handle));
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return delegate.isCompatible(handleType);
    }

    private record Registration(IoRegistration delegate) implements IoRegistration {
        @Override
        public <T> T attachment() {
            return delegate.attachment();
        }

        @Override
        public long submit(IoOps ops) {
            if (ops instanceof EpollIoOps epoll && epoll.value() == EpollIoOps.NONE.value()) {
                return delegate.submit(EpollIoOps.EPOLLET);
            }
            return delegate.submit(ops);
        }

        @Override
        public boolean isValid() {
            return delegate.isValid();
        }

        @Override
        public boolean cancel() {
            return delegate.cancel();
        }
    }
}
