package dev.tunnel.protocol.transport;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;

/**
 * Netty's {@link EpollIoHandler} with two fixes for Netty 4.2.18. Remove each when a Netty
 * without the bug is allowed here; {@code FixedEpollIoHandlerTest} fails on Netty's own handler
 * for each of them.
 *
 * <h3>1. A socket never asks epoll for "no events"</h3>
 * When a channel's interest set becomes empty (its input was shut down, which is what a
 * half-closed socket with {@code ALLOW_HALF_CLOSURE} does, and nothing is waiting to be written),
 * Netty's registration removes the file descriptor from epoll but still believes it is there.
 * The next write that fills the socket's send buffer asks for {@code EPOLLOUT} with
 * {@code EPOLL_CTL_MOD}, which fails with {@code ENOENT}; Netty then shuts the channel's output
 * and the bytes still queued are lost, while the other side sees an ordinary end of stream. In
 * the tunnel that truncated replies to clients that had sent their FIN first. Here an empty
 * interest set is submitted as {@code EPOLLET} alone: the descriptor stays registered, reports
 * nothing but an edge-triggered hang-up or error, and later changes are plain modifications.
 *
 * <h3>2. An event is never delivered to a socket younger than the event</h3>
 * Netty finds the channel of each ready event by its file descriptor number. When handling one
 * event closes a socket (a stream's FIN closes its local connection) and creates another in the
 * same batch (the next stream's OPEN connects to the local app, or the listener accepts), the
 * kernel hands the new socket the number just freed; an event for the closed socket still
 * further down the same batch (its peer's FIN, say) is then delivered to the new one. A
 * connecting socket that gets such a hang-up fails its connect with a
 * {@code ClosedChannelException}: under {@code Connection: close} load 1-3 % of tunneled
 * connections were reset that way. Here a socket registered during a batch ignores the rest
 * of that batch: every event in it was collected by {@code epoll_wait} before the socket existed,
 * so none can be its own. Its real events come with the next {@code epoll_wait}, since epoll
 * reports a socket's state when it is added (level) or changes (edge).
 *
 * <p>Threading: as the wrapped handler; everything here runs on its event loop thread.
 */
final class FixedEpollIoHandler implements IoHandler {
    private final IoHandler delegate;
    /** Counts {@link #run} calls: one {@code epoll_wait} and the processing of its batch each. */
    private long batch;
    private boolean inBatch;

    private FixedEpollIoHandler(IoHandler delegate) {
        this.delegate = delegate;
    }

    static IoHandlerFactory newFactory() {
        IoHandlerFactory epoll = EpollIoHandler.newFactory();
        return executor -> new FixedEpollIoHandler(epoll.newHandler(executor));
    }

    @Override
    public void initialize() {
        delegate.initialize();
    }

    @Override
    public int run(IoHandlerContext context) {
        batch++;
        inBatch = true;
        try {
            return delegate.run(context);
        } finally {
            inBatch = false;
        }
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
        IoHandle registered = handle instanceof EpollIoHandle epoll ? new BornInBatch(epoll, inBatch ? batch : -1) : handle;
        return new KeepRegistered(delegate.register(registered));
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return delegate.isCompatible(handleType);
    }

    /** Fix 2: drops the events of the batch during which the socket was registered. */
    private final class BornInBatch implements EpollIoHandle {
        private final EpollIoHandle handle;
        private final long born;

        BornInBatch(EpollIoHandle handle, long born) {
            this.handle = handle;
            this.born = born;
        }

        @Override
        public FileDescriptor fd() {
            return handle.fd();
        }

        @Override
        public void handle(IoRegistration registration, IoEvent ioEvent) {
            if (inBatch && batch == born) {
                return; // an event of the socket that had this descriptor number before
            }
            handle.handle(registration, ioEvent);
        }

        @Override
        public void registered() {
            handle.registered();
        }

        @Override
        public void unregistered() {
            handle.unregistered();
        }

        @Override
        public void close() throws Exception {
            handle.close();
        }
    }

    /** Fix 1: an empty interest set is submitted as {@code EPOLLET}. */
    private record KeepRegistered(IoRegistration delegate) implements IoRegistration {
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
