package dev.tunnel.protocol.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;

/**
 * The options every UDP socket of the tunnel gets: large socket buffers, reads of one byte more
 * than {@code udpPacketSize} (so a longer datagram shows, and is dropped), and with epoll up to
 * {@link UdpLimits#DATAGRAMS_PER_READ} datagrams per {@code recvmmsg} call.
 */
public final class UdpSockets {
    private UdpSockets() {
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
