package dev.tunnel.client.plugin;

import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.transport.Failures;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.socksx.v5.DefaultSocks5CommandResponse;
import io.netty.handler.codec.socksx.v5.DefaultSocks5InitialResponse;
import io.netty.handler.codec.socksx.v5.DefaultSocks5PasswordAuthResponse;
import io.netty.handler.codec.socksx.v5.Socks5AddressType;
import io.netty.handler.codec.socksx.v5.Socks5AuthMethod;
import io.netty.handler.codec.socksx.v5.Socks5CommandRequest;
import io.netty.handler.codec.socksx.v5.Socks5CommandRequestDecoder;
import io.netty.handler.codec.socksx.v5.Socks5CommandStatus;
import io.netty.handler.codec.socksx.v5.Socks5CommandType;
import io.netty.handler.codec.socksx.v5.Socks5InitialRequest;
import io.netty.handler.codec.socksx.v5.Socks5Message;
import io.netty.handler.codec.socksx.v5.Socks5PasswordAuthRequest;
import io.netty.handler.codec.socksx.v5.Socks5PasswordAuthRequestDecoder;
import io.netty.handler.codec.socksx.v5.Socks5PasswordAuthStatus;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * frp's {@code socks5} plugin for one visitor connection (RFC 1928): greeting, optional
 * username/password authentication (RFC 1929), one {@code CONNECT} command, then raw bytes.
 *
 * <h3>Replies</h3>
 * <ul>
 *   <li>Greeting: with credentials configured only method {@code 0x02} (username/password) is
 *       accepted, without them only {@code 0x00}; a client offering neither gets {@code 0xFF} and
 *       the connection closes.</li>
 *   <li>Authentication: wrong credentials get status {@code 0x01} after
 *       {@value HttpProxyHandler#WRONG_CREDENTIALS_DELAY_MILLIS} ms and the connection closes (RFC
 *       1929: the server must close it).</li>
 *   <li>Command: {@code BIND} and {@code UDP ASSOCIATE} get {@code 0x07} (command not supported);
 *       a destination {@link Destinations} refuses gets {@code 0x02} (not allowed by ruleset);
 *       a failed connect gets {@code 0x05} (refused), {@code 0x04} (host unreachable or unknown),
 *       {@code 0x06} (timed out) or {@code 0x01}; success gets {@code 0x00} with the address the
 *       outbound socket is bound to.</li>
 *   <li>Anything malformed (a SOCKS4 client included) closes the connection without a reply.</li>
 * </ul>
 *
 * <h3>Flow control</h3>
 * {@code AUTO_READ} is off: one read per step of the exchange, none while the target is dialed
 * (bytes sent behind the command wait in the relay); the {@link PipeRelay}s take over at the join.
 *
 * <p>Threading: one instance per connection, on its event loop.
 */
final class Socks5Handler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(Socks5Handler.class);
    static final String NAME = "socks5";
    /** RFC 1929 allows any non-zero status; 0x01 is what frp's SOCKS5 server sends (Netty's constant is 0xFF). */
    private static final Socks5PasswordAuthStatus AUTH_FAILURE = Socks5PasswordAuthStatus.valueOf((byte) 0x01);

    private final SocksCredentials credentials;
    private final Destinations destinations;
    private final String encoderName;
    private final String decoderName;
    /** Whether the current step's message arrived; until then a read that ends without one asks for another. */
    private boolean stepDone;

    /** @param credentials null when the proxy is open */
    Socks5Handler(SocksCredentials credentials, Destinations destinations, String encoderName, String decoderName) {
        this.credentials = credentials;
        this.destinations = destinations;
        this.encoderName = encoderName;
        this.decoderName = decoderName;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Socks5Message message)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (message.decoderResult().isFailure()) {
            stepDone = true;
            LOG.debug("{} malformed SOCKS5 {}: {}", ctx.channel(), message.getClass().getSimpleName(),
                    message.decoderResult().cause().toString());
            ctx.close();
            return;
        }
        if (message instanceof Socks5InitialRequest greeting) {
            greet(ctx, greeting);
        } else if (message instanceof Socks5PasswordAuthRequest login) {
            authenticate(ctx, login);
        } else if (message instanceof Socks5CommandRequest command) {
            command(ctx, command);
        } else {
            ctx.close();
        }
    }

    private void greet(ChannelHandlerContext ctx, Socks5InitialRequest greeting) {
        Socks5AuthMethod wanted = credentials == null ? Socks5AuthMethod.NO_AUTH : Socks5AuthMethod.PASSWORD;
        if (!greeting.authMethods().contains(wanted)) {
            LOG.debug("{} SOCKS5 client offers {}, this proxy needs {}", ctx.channel(), greeting.authMethods(), wanted);
            stepDone = true;
            ctx.writeAndFlush(new DefaultSocks5InitialResponse(Socks5AuthMethod.UNACCEPTED))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.pipeline().replace(decoderName, decoderName, credentials == null
                ? new Socks5CommandRequestDecoder() : new Socks5PasswordAuthRequestDecoder());
        ctx.writeAndFlush(new DefaultSocks5InitialResponse(wanted));
        stepDone = true;
        ctx.read();
    }

    private void authenticate(ChannelHandlerContext ctx, Socks5PasswordAuthRequest login) {
        if (credentials == null || !credentials.accepts(login.username(), login.password())) {
            stepDone = true;
            ctx.executor().schedule(() -> ctx.writeAndFlush(new DefaultSocks5PasswordAuthResponse(AUTH_FAILURE))
                            .addListener(ChannelFutureListener.CLOSE),
                    HttpProxyHandler.WRONG_CREDENTIALS_DELAY_MILLIS, TimeUnit.MILLISECONDS);
            return;
        }
        ctx.pipeline().replace(decoderName, decoderName, new Socks5CommandRequestDecoder());
        ctx.writeAndFlush(new DefaultSocks5PasswordAuthResponse(Socks5PasswordAuthStatus.SUCCESS));
        stepDone = true;
        ctx.read();
    }

    private void command(ChannelHandlerContext ctx, Socks5CommandRequest command) {
        if (!Socks5CommandType.CONNECT.equals(command.type())) {
            stepDone = true;
            ctx.writeAndFlush(new DefaultSocks5CommandResponse(Socks5CommandStatus.COMMAND_UNSUPPORTED,
                    Socks5AddressType.IPv4)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        HeadDeadline.done(ctx);
        Channel visitor = ctx.channel();
        // From here on the visitor's bytes are raw: the relay holds whatever came behind the command.
        PipeRelay front = PipeRelay.replace(visitor, NAME);
        visitor.pipeline().remove(decoderName);
        Outbound.open(visitor.eventLoop(), command.dstAddr(), command.dstPort(), destinations, visitor + " socks5")
                .addListener(f -> {
                    if (f.isSuccess()) {
                        joined(visitor, front, (Outbound.Dial) f.getNow());
                        return;
                    }
                    LOG.debug("{} SOCKS5 target {}:{} not reached: {}", visitor, command.dstAddr(), command.dstPort(),
                            Failures.describe(f.cause()));
                    visitor.writeAndFlush(new DefaultSocks5CommandResponse(status(f.cause()), Socks5AddressType.IPv4))
                            .addListener(ChannelFutureListener.CLOSE);
                });
    }

    /** Answers success with the address the outbound socket is bound to, then relays raw bytes. */
    private void joined(Channel visitor, PipeRelay front, Outbound.Dial dial) {
        InetSocketAddress bound = (InetSocketAddress) dial.channel().localAddress();
        String address = bound.getAddress().getHostAddress();
        Socks5AddressType type = NetUtil.isValidIpV6Address(address) ? Socks5AddressType.IPv6 : Socks5AddressType.IPv4;
        visitor.writeAndFlush(new DefaultSocks5CommandResponse(Socks5CommandStatus.SUCCESS, type, address,
                bound.getPort()));
        visitor.pipeline().remove(encoderName);
        PipeRelay.join(front, dial.relay());
    }

    /** The reply code for a failed connect (RFC 1928 section 6). */
    static Socks5CommandStatus status(Throwable cause) {
        if (cause instanceof Outbound.RefusedDestination) {
            return Socks5CommandStatus.FORBIDDEN;
        }
        if (cause instanceof ConnectTimeoutException) {
            return Socks5CommandStatus.TTL_EXPIRED;
        }
        if (cause instanceof UnknownHostException || cause instanceof NoRouteToHostException) {
            return Socks5CommandStatus.HOST_UNREACHABLE;
        }
        return cause instanceof ConnectException ? Socks5CommandStatus.CONNECTION_REFUSED : Socks5CommandStatus.FAILURE;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!stepDone) {
            ctx.read();
        }
        stepDone = false;
        ctx.fireChannelReadComplete();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("{} socks5 connection failed: {}", ctx.channel(), Failures.describe(cause));
        ctx.close();
    }
}
