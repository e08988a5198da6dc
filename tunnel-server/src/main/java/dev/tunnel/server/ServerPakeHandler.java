package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.PakeChallenge;
import dev.tunnel.protocol.ControlMessage.PakeHello;
import dev.tunnel.protocol.ProtocolException;
import dev.tunnel.protocol.auth.PakeSecret;
import dev.tunnel.protocol.auth.PakeServer;
import dev.tunnel.protocol.auth.PakeWorker;
import dev.tunnel.protocol.auth.Ephemerals;
import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import dev.tunnel.protocol.auth.TokenVerifier;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;

/**
 * The server's half of the PAKE login on one tunnel connection (docs/security.md), in front of
 * the handlers that take the connection's first message. On {@code PAKE_HELLO} it looks up the
 * account (a decoy verifier for a user with none, so the answer looks the same), computes
 * {@code B} from a precomputed exponent ({@link Ephemerals}) and sends
 * {@code PAKE_CHALLENGE}, then computes the shared secret while the client computes its own. The {@code LOGIN} that follows is held until that secret is ready, then passed
 * on to {@link ServerControlHandler}, which checks it ({@link LoginAuthenticator#verifyPake}) with
 * what was agreed ({@link #takeAgreed}). The first message that is not a hello (a token login, a work
 * connection) is passed on and this handler steps aside. A server with {@code auth.pake = "off"}
 * has none, and the control handler refuses the hello.
 *
 * <p>Threading: the connection's event loop, which computes the secret; {@code g^b} is
 * precomputed on the {@link PakeWorker}, which also computes it when none is ready (its answer
 * comes back on this loop).
 */
final class ServerPakeHandler extends ChannelInboundHandlerAdapter {
    /** What the PAKE login agreed on this connection: the hello's user, its account (null: none) and the secret. */
    record Agreed(String user, Credentials.Account account, PakeSecret secret) {
        @Override
        public String toString() {
            return "Agreed[" + user + "]"; // never the secret
        }
    }

    private final Credentials credentials;
    private final ServerNonce greeting;
    private final PakeWorker worker;
    private PakeHello hello;
    private Future<PakeSecret> secret;
    private Credentials.Account account;
    /** The login waiting for the secret, or null. */
    private Object heldLogin;

    /**
     * @param greeting the connection's preface and challenge, sent before the PAKE challenge
     * @param worker   where the modular exponentiations run ({@link PakeWorker#shared()})
     */
    ServerPakeHandler(Credentials credentials, ServerNonce greeting, PakeWorker worker) {
        this.credentials = credentials;
        this.greeting = greeting;
        this.worker = worker;
    }

    /** Where the agreed login waits for the control handler, from the hand-over to its {@link #takeAgreed}. */
    private static final AttributeKey<Agreed> AGREED = AttributeKey.valueOf(ServerPakeHandler.class, "agreed");

    /** What the PAKE login on {@code channel} agreed, once; null when the client sent a token login. */
    static Agreed takeAgreed(Channel channel) {
        return channel.attr(AGREED).getAndSet(null);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ControlFrame frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (frame.message() instanceof PakeHello h) {
            if (hello != null) {
                throw new ProtocolException("a second PAKE hello on one connection");
            }
            hello = h;
            start(ctx);
            return;
        }
        if (frame.message() instanceof Login && hello != null) {
            if (secret == null || !secret.isDone()) {
                heldLogin = msg; // the decoder decodes nothing behind a login: this is the last message
                ctx.channel().config().setAutoRead(false);
            } else if (secret.isSuccess()) {
                handOver(ctx, msg);
            } // else the connection is closing for the failure already reported
            return;
        }
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(msg);
    }

    /** This connection's PAKE login is over (handed on, refused or closed): refill the exponent it may have taken. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        worker.serverEphemerals().refill();
    }

    /** Passes the login on with what was agreed, and steps aside. */
    private void handOver(ChannelHandlerContext ctx, Object login) {
        ctx.channel().attr(AGREED).set(new Agreed(hello.user(), account, secret.getNow()));
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(login);
    }

    /**
     * Answers the hello: at once with a precomputed exponent ({@link Ephemerals}), else
     * once the worker computed a fresh one.
     */
    private void start(ChannelHandlerContext ctx) {
        Credentials.Account found = credentials.find(hello.user());
        account = found != null && found.verifier() != null ? found : null;
        TokenVerifier verifier = account != null ? account.verifier() : credentials.decoy(hello.user());
        Ephemeral ready = worker.serverEphemerals().poll();
        if (ready != null) {
            challenge(ctx, PakeServer.start(verifier, ready));
            return;
        }
        Future<PakeServer> started = worker.submit(ctx.executor(), () -> PakeServer.start(verifier));
        started.addListener(f -> {
            if (!f.isSuccess()) {
                ctx.fireExceptionCaught(new ProtocolException("PAKE login: " + f.cause().getMessage()));
            } else if (ctx.channel().isActive() && !ctx.isRemoved()) {
                challenge(ctx, started.getNow());
            }
        });
    }

    /**
     * Sends the greeting (unless sent) and the PAKE challenge, then computes the secret here
     * while the client computes its own: two 256-bit exponentiations, about 2 ms with C2, about
     * what the TLS handshake that came before cost this loop, and once per connection (a second
     * hello is refused); a hop to the worker and back would cost more under load. Under C1 only
     * (the 1 GB VPS flags) they take ~20 ms each, without BigInteger's intrinsics, and hold up
     * the handshakes queued on this loop during a login storm (docs/benchmarks.md, "Login storm").
     */
    private void challenge(ChannelHandlerContext ctx, PakeServer server) {
        greeting.greet(ctx); // already done, unless the answer came within the read that brought the hello
        ctx.writeAndFlush(new ControlFrame(new PakeChallenge(server.salt(), server.serverPublic())));
        try {
            secret = ctx.executor().newSucceededFuture(server.agree(hello.clientPublic()));
        } catch (IllegalArgumentException e) {
            secret = ctx.executor().newFailedFuture(e);
        }
        agreedOrFailed(ctx);
    }

    private void agreedOrFailed(ChannelHandlerContext ctx) {
        if (ctx.isRemoved()) {
            return;
        }
        if (!secret.isSuccess()) {
            Throwable cause = secret.cause();
            ctx.fireExceptionCaught(cause instanceof IllegalArgumentException
                    ? new ProtocolException("PAKE login: " + cause.getMessage())
                    : new ProtocolException("PAKE login: " + cause));
            return;
        }
        Object login = heldLogin;
        if (login != null && ctx.channel().isActive()) {
            heldLogin = null;
            ctx.channel().config().setAutoRead(true);
            handOver(ctx, login);
        }
    }
}
