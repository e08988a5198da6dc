package dev.tunnel.client;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.NewWorkConn;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.StartWorkConn;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.PrefaceDecoder.PrefaceEvent;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.auth.ConnectionProof;
import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.tls.TlsSessions;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.function.Function;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's end of one work connection (pool mode) while it waits in the server's pool:
 * sends the preface, waits for the server's preface and {@code CHALLENGE}, and answers with
 * {@code NEW_WORK_CONN} (a {@link ConnectionProof#WORK_CONN} proof over the session id, the server's nonce of this
 * connection, a fresh client nonce and the certificate this connection saw; never the token).
 * The certificate must be the one the control connection's login was proven for (and the pin,
 * if any). With a nonce the server issued ahead on the control connection, it does not wait for the
 * challenge: {@code NEW_WORK_CONN} covers that nonce and follows the preface as soon as the TLS
 * handshake is done, and a challenge the server sent anyway is dropped. Then it sends nothing
 * and waits for {@code START_WORK_CONN}. The server's keepalive pings are
 * read and dropped. On start it removes the codec, so the bytes behind the start message reach
 * a {@link PipeRelay}, and hands the connection to the {@link WorkConnector}; for a udp proxy
 * the connection becomes a carrier session instead ({@code CarrierSession}).
 *
 * <p>Threading: runs on the connection's event loop (the control connection's).
 */
final class ClientWorkConn extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ClientWorkConn.class);

    /**
     * How to reach and authenticate to the server; {@code localAddress} is where work connections
     * leave from ({@code transport.connectServerLocalIP}), null = the OS picks; {@code keepalive}
     * is {@code transport.dialServerKeepalive}.
     */
    record Settings(InetSocketAddress server, Function<SocketChannel, SslHandler> tls, ClientCredentials credentials,
                    int connectTimeoutMillis, InetSocketAddress localAddress, int keepalive) {
    }

    /** Called when the server starts a work connection; the codec is gone, {@code workEnd} holds early bytes. */
    interface Starter {
        void start(Channel work, PipeRelay workEnd, int proxyId, String source);

        /**
         * Called first: if {@code proxyId}'s datagrams ride a carrier session (a udp proxy), puts
         * it on {@code work} in place of this handler and returns true; the codec's held bytes
         * then go to it.
         */
        default boolean startCarrier(Channel work, int proxyId) {
            return false;
        }

        /** The work connection's TLS handshake succeeded (its event loop). */
        void handshaken(SslHandler tls);

        /**
         * The work connection offered X25519 alone and its handshake did not resume: it is being
         * closed unused, and one should be opened in its place with the default groups.
         */
        void reopenWithDefaultGroups(Channel abandoned, String issuedNonce);
    }

    private final ClientCredentials credentials;
    private final SessionKey session;
    private final ChannelBinding loginBinding;
    private final Starter starter;
    /** The handshake offers X25519 alone: usable only if it resumes ({@link TlsSessions}). */
    private final boolean x25519Only;
    /** The server nonce issued ahead for this connection, or null: it answers its challenge. */
    private final String issuedNonce;
    private boolean answered;

    private ClientWorkConn(ClientCredentials credentials, SessionKey session, ChannelBinding loginBinding, Starter starter,
                           boolean x25519Only, String issuedNonce) {
        this.issuedNonce = issuedNonce;
        this.credentials = credentials;
        this.session = session;
        this.loginBinding = loginBinding;
        this.starter = starter;
        this.x25519Only = x25519Only;
    }

    /**
     * The whole pipeline of a client work connection; see {@link TunnelPipeline}.
     *
     * @param loginBinding the certificate binding the control connection's login was proven for
     * @param expectResumption a session ticket is probably at hand: offer X25519 alone, and give the
     *                         connection up if its handshake is full after all ({@link TlsSessions})
     * @param issuedNonce      a nonce the server issued ahead for this connection, or null
     */
    static void initPipeline(SocketChannel ch, Settings settings, SessionKey session, ChannelBinding loginBinding,
                             Starter starter, boolean expectResumption, String issuedNonce) {
        ChannelPipeline p = ch.pipeline();
        boolean x25519Only = false;
        if (settings.tls() != null) {
            SslHandler tls = settings.tls().apply(ch);
            x25519Only = expectResumption && TlsSessions.offerX25519Only(tls);
            p.addLast(TunnelPipeline.TLS, tls);
        }
        addHandlers(p, settings, session, loginBinding, starter, x25519Only, issuedNonce);
    }

    /** What follows the optional TLS handler: the codec and this handler. */
    static void addHandlers(ChannelPipeline p, Settings settings, SessionKey session, ChannelBinding loginBinding,
                            Starter starter, boolean x25519Only, String issuedNonce) {
        TunnelPipeline.addClientWorkConn(p);
        p.addLast(TunnelPipeline.WORK_CONN, new ClientWorkConn(settings.credentials(), session, loginBinding, starter,
                x25519Only, issuedNonce));
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(Preface.encode(ctx.alloc()));
        if (issuedNonce != null && ctx.pipeline().get(SslHandler.class) == null) {
            answerAhead(ctx);
        }
        ctx.fireChannelActive();
    }

    /** Proves this connection with its issued nonce, behind the preface; closes it if this server is refused. */
    private void answerAhead(ChannelHandlerContext ctx) {
        answered = true;
        if (!answer(ctx, issuedNonce, true)) {
            ctx.close();
        }
    }

    /**
     * Sends {@code NEW_WORK_CONN} over {@code serverNonce} (this connection's challenge, or the
     * nonce issued ahead); false (after a log line) if this server is refused.
     */
    private boolean answer(ChannelHandlerContext ctx, String serverNonce, boolean issued) {
        if (!LoginProof.wellFormedNonce(serverNonce)) {
            log.warn("{} work connection: malformed challenge from the server: closing", ctx.channel());
            return false;
        }
        ChannelBinding seen;
        try {
            seen = LoginExchange.seenBinding(ctx.pipeline().get(SslHandler.class));
        } catch (SSLPeerUnverifiedException e) {
            log.warn("{} work connection: no server certificate: closing", ctx.channel());
            return false;
        }
        ChannelBinding pin = credentials.pinnedServer();
        if (!seen.matches(loginBinding) || pin != null && !pin.matches(seen)) {
            log.warn("{} work connection: {} is not the certificate the login was made with ({}): closing",
                    ctx.channel(), seen.isNone() ? "no TLS" : "server certificate " + seen.fingerprint(),
                    loginBinding.isNone() ? "no TLS" : loginBinding.fingerprint());
            return false;
        }
        String nonce = LoginProof.newNonce();
        String proof = ConnectionProof.WORK_CONN.compute(session.key(), credentials.user(), session.id(),
                serverNonce, nonce, seen);
        ctx.writeAndFlush(new ControlFrame(new NewWorkConn(session.id(), System.currentTimeMillis(), nonce, proof,
                issued ? serverNonce : "")));
        return true;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof PrefaceEvent preface && preface.version() != Preface.VERSION) {
            log.warn("{} work connection: server speaks protocol version {}: closing", ctx.channel(), preface.version());
            ctx.close();
            return;
        }
        if (evt instanceof SslHandshakeCompletionEvent handshake) {
            if (!handshake.isSuccess()) {
                log.debug("{} work connection: TLS handshake failed: {}", ctx.channel(), handshake.cause().getMessage());
                ctx.close();
                return;
            }
            SslHandler tls = ctx.pipeline().get(SslHandler.class);
            if (x25519Only && TlsSessions.needsDefaultGroups(tls)) {
                // before the server's tickets arrive: nothing of this handshake is used or kept
                log.debug("{} work connection: offered X25519 alone and did not resume: made again", ctx.channel());
                starter.reopenWithDefaultGroups(ctx.channel(), issuedNonce);
                ctx.close();
                return;
            }
            starter.handshaken(tls);
            if (issuedNonce != null) {
                answerAhead(ctx);
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ControlFrame frame && frame.message() instanceof Ping) {
            return;
        }
        if (issuedNonce != null && msg instanceof ControlFrame frame && frame.message() instanceof Challenge) {
            return; // our preface reached the server in a read of its own; the issued nonce answers
        }
        if (!answered && msg instanceof ControlFrame frame && frame.message() instanceof Challenge challenge) {
            answered = true;
            if (!answer(ctx, challenge.serverNonce(), false)) {
                ctx.close();
            }
            return;
        }
        if (answered && msg instanceof ControlFrame frame && frame.message() instanceof StartWorkConn start) {
            Channel ch = ctx.channel();
            if (starter.startCarrier(ch, start.proxyId())) {
                ch.pipeline().remove(TunnelPipeline.CONTROL_DECODER); // hands the bytes behind START to the carrier
                return;
            }
            ch.config().setAutoRead(false);
            PipeRelay workEnd = PipeRelay.replace(ch, TunnelPipeline.WORK_CONN);
            ch.pipeline().remove(TunnelPipeline.FRAME_ENCODER);
            ch.pipeline().remove(TunnelPipeline.CONTROL_DECODER); // hands the bytes behind START to workEnd
            starter.start(ch, workEnd, start.proxyId(), start.source());
            return;
        }
        ReferenceCountUtil.release(msg);
        log.warn("{} work connection: unexpected {} from the server: closing", ctx.channel(), msg);
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        log.debug("{} work connection closed: {}", ctx.channel(), root.toString());
        ctx.close();
    }
}
