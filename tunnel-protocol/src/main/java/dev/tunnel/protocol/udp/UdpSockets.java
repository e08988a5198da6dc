package dev.tunnel.protocol.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The options every UDP socket of the tunnel gets: large socket buffers, reads of one byte more
 * than {@code udpPacketSize} (so a longer datagram shows, and is dropped), and with epoll up to
 * {@link UdpLimits#DATAGRAMS_PER_READ} datagrams per {@code recvmmsg} call.
 */
public final class UdpSockets {
    private static final Logger log = LoggerFactory.getLogger(UdpSockets.class);
    private static final AtomicBoolean smallBuffersLogged = new AtomicBoolean();

    private UdpSockets() {
    }

    /**
     * Says once per process, at WARN, when the kernel granted {@code socket} a receive buffer
     * smaller than {@link UdpLimits#SOCKET_BUFFER} (it caps the request at
     * {@code net.core.rmem_max}, 208 KiB by default: about 4 ms of datagrams at 200 Mbit/s, so a
     * burst that arrives while the process waits for a core is dropped by the kernel).
     */
    public static void checkBuffers(Channel socket) {
        int reported = socket.config().getOption(ChannelOption.SO_RCVBUF);
        // Linux reports twice what it granted (the other half is its own bookkeeping)
        int granted = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")
                ? reported / 2 : reported;
        if (granted < UdpLimits.SOCKET_BUFFER && smallBuffersLogged.compareAndSet(false, true)) {
            log.warn("UDP sockets get a receive buffer of {} KiB, not the {} KiB asked for: bursts of datagrams"
                    + " beyond it are dropped by the kernel; raise it with sysctl -w net.core.rmem_max={} (and"
                    + " net.core.wmem_max)", granted / 1024, UdpLimits.SOCKET_BUFFER / 1024, UdpLimits.SOCKET_BUFFER);
        }
    }

    public static Bootstrap configure(Bootstrap bootstrap, Class<?> channelClass, int packetSize) {
        int slot = packetSize + 1;
        bootstrap.option(ChannelOption.SO_RCVBUF, UdpLimits.SOCKET_BUFFER)
                .option(ChannelOption.SO_SNDBUF, UdpLimits.SOCKET_BUFFER)
                // what one read of the tunnel connection may bring for one association, before a flush
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(512 * 1024, 1024 * 1024));
        if (channelClass == EpollDatagramChannel.class) {
            // one buffer holds a slot per datagram; recvmmsg fills several slots per call
            bootstrap.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, slot)
                    .option(ChannelOption.RCVBUF_ALLOCATOR,
                            new FixedRecvByteBufAllocator(slot * UdpLimits.DATAGRAMS_PER_READ)
                                    .maxMessagesPerRead(UdpLimits.DATAGRAMS_PER_READ));
        } else {
            bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR,
                    new FixedRecvByteBufAllocator(slot).maxMessagesPerRead(UdpLimits.DATAGRAMS_PER_READ));
        }
        return bootstrap;
    }
}
