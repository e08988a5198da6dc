package dev.tunnel.server;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.PakeChallenge;
import dev.tunnel.protocol.ControlMessage.PakeHello;
import dev.tunnel.protocol.ControlMessage.PakeShare;
import dev.tunnel.protocol.ProtocolException;
import dev.tunnel.protocol.auth.PakeSecret;
import dev.tunnel.protocol.auth.PakeServer;
import dev.tunnel.protocol.auth.PakeWorker;
import dev.tunnel.protocol.auth.TokenVerifier;
import dev.tunnel.protocol.auth.VerifierEphemerals;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The server's half of the PAKE login on one tunnel connection (docs/security.md), in front of
 * the handlers that take the connection's first message. On {@code PAKE_HELLO} it looks up the
 * account (a decoy verifier for a user with none, so the answer looks the same), takes a scalar
 * {@code y} computed ahead for that verifier with {@code y·P} and {@code V = y·L}
 * ({@link VerifierEphemerals}; a decoy takes from its base's pool as an account from its own),
 * sends {@code PAKE_CHALLENGE} with {@code Y}, then offers {@code Z} from the client's {@code X} to
 * the {@link PakeWorker} when the hello carried it for this account's salt (a client that logged
 * in here before), else computes {@code Z} on {@code PAKE_SHARE}. At the {@code LOGIN} right
 * behind it, whatever the worker has not started is computed here, and the login is passed on
 * to {@link ServerControlHandler}, which checks it ({@link LoginAuthenticator#verifyPake}) with
 * what was agreed ({@link #takeAgreed}). The first message that is not part of the PAKE login (a
 * token login, a work connection) is passed on and this handler steps aside. A server with
 * {@code auth.pake = "off"} has none, and the control handler refuses the hello.
 *
 * <p>Threading: the connection's event loop, which runs the login's elliptic-curve
 * multiplications the worker did not take (about as much as the TLS handshake that came before
 * cost it, once per connection: a second hello is refused), and may wait at the login for one the
 * worker is computing; the {@link PakeWorker} computes what it takes of them, handing the result
 * back through {@link PakeServer}, and refills the precomputed scalars once the login is answered.
 */
final class ServerPakeHandler extends ChannelInboundHandlerAdapter {
    /** What the PAKE login agreed on this connection: the hello's user, its account (null: none) and the secret. */
    record Agreed(String user, Credentials.Account account, PakeSecret secret) {
        @Override
        public String toString() {
            return "Agreed[" + user + "]"; // never the secret
        }
    }

    /**
     * How long after the login's answer its scalar is replaced: long enough for a client on the
     * same host (or a loopback benchmark) to read the answer before the refill takes a core.
     */
    static final long REFILL_DELAY_MICROS = 1_000;

    private final Credentials credentials;
    private final ServerNonce greeting;
    private final PakeWorker worker;
    private PakeHello hello;
    private Credentials.Account account;
    private TokenVerifier verifier;
    private PakeServer server;
    private PakeSecret secret;

    /**
     * @param greeting the connection's preface and challenge, sent before the PAKE challenge
     * @param worker   where {@code Z} is offered to ({@link PakeWorker#shared()})
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
            challenge(ctx);
            return;
        }
        if (frame.message() instanceof PakeShare share) {
            if (server == null || server.hasEarlyShare() || secret != null) {
                throw new ProtocolException("an unexpected PAKE share (before the challenge, or after the hello's)");
            }
            try {
                secret = server.agree(share.clientShare());
            } catch (IllegalArgumentException e) {
                throw new ProtocolException("PAKE login: " + e.getMessage());
            }
            return;
        }
        if (frame.message() instanceof Login && hello != null) {
            if (secret == null && server.hasEarlyShare()) {
                try {
                    secret = server.agreed();
                } catch (IllegalArgumentException e) {
                    throw new ProtocolException("PAKE login: " + e.getMessage());
                }
            }
            if (secret == null) {
                throw new ProtocolException("a PAKE login without the client's PAKE share");
            }
            ctx.channel().attr(AGREED).set(new Agreed(hello.user(), account, secret));
        }
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(msg);
    }

    /**
     * This connection's PAKE login is over (handed on, refused or closed): refill the scalar it
     * took once the loop has answered the login and {@link #REFILL_DELAY_MICROS} more have passed,
     * so that the refill does not take a core while the client waits for the answer or reads it.
     */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (verifier == null) {
            return; // no PAKE login on this connection: nothing taken
        }
        VerifierEphemerals pools = credentials.ephemerals();
        TokenVerifier taken = verifier;
        try {
            ctx.executor().schedule(() -> pools.refill(taken), REFILL_DELAY_MICROS, TimeUnit.MICROSECONDS);
        } catch (RejectedExecutionException e) {
            pools.refill(taken); // the loop shuts down
        }
    }

    /**
     * Answers the hello: takes a scalar computed ahead for the verifier, with {@code V} (a scalar
     * of the shared pool when its pool is empty, or one computed here, a fixed-base
     * multiplication, when that is empty too), sends the greeting (unless sent) and the PAKE
     * challenge in one flush, then offers {@code Z} when the hello carried the client's share for
     * this account's salt, and {@code V} unless it came with the scalar, to the worker
     * ({@link PakeServer#prepare(java.util.concurrent.Executor, String)}); what the worker has not
     * started is computed here when the login arrives. The offer is made after the flush: the
     * client's thread, woken by it, is ahead of the worker's for a core (an offer made before
     * the flush measured no faster: the worker then held a core into the client's own
     * multiplications).
     */
    private void challenge(ChannelHandlerContext ctx) {
        Credentials.Account found = credentials.find(hello.user());
        account = found != null && found.verifier() != null ? found : null;
        verifier = account != null ? account.verifier() : credentials.decoy(hello.user());
        server = PakeServer.start(verifier, credentials.ephemerals().take(verifier));
        greeting.writeGreeting(ctx); // flushed with the PAKE challenge: one TLS record, one read for the client
        ctx.writeAndFlush(new ControlFrame(new PakeChallenge(server.salt(), server.serverShare())));
        boolean early = !hello.clientShare().isEmpty() && hello.salt().equals(server.salt());
        try {
            server.prepare(worker.helper(), early ? hello.clientShare() : "");
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("PAKE login: " + e.getMessage());
        }
    }
}
