package dev.tunnel.client.plugin;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.socksx.v5.Socks5InitialRequestDecoder;
import io.netty.handler.codec.socksx.v5.Socks5ServerEncoder;

/**
 * Assembles one {@code socks5} connection's pipeline and nothing else:
 * {@code headDeadline -> socksEncoder -> socksDecoder -> socks5}. The decoder is swapped per step
 * (greeting, authentication, command); messages are a few hundred bytes at most (RFC 1928/1929
 * fields are length-prefixed by one byte), so nothing here grows with what a client sends.
 */
final class Socks5Initializer extends ChannelInitializer<Channel> {
    static final String ENCODER = "socksEncoder";
    static final String DECODER = "socksDecoder";

    private final SocksCredentials credentials;
    private final Destinations destinations;
    private final long headDeadlineMillis;

    Socks5Initializer(SocksCredentials credentials, Destinations destinations, long headDeadlineMillis) {
        this.credentials = credentials;
        this.destinations = destinations;
        this.headDeadlineMillis = headDeadlineMillis;
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.pipeline().addLast(HeadDeadline.NAME, new HeadDeadline(headDeadlineMillis));
        ch.pipeline().addLast(ENCODER, Socks5ServerEncoder.DEFAULT);
        ch.pipeline().addLast(DECODER, new Socks5InitialRequestDecoder());
        ch.pipeline().addLast(Socks5Handler.NAME, new Socks5Handler(credentials, destinations, ENCODER, DECODER));
    }
}
