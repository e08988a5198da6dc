package dev.tunnel.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a tunnel connection that has not finished TLS and logged in within
 * {@code transport.loginTimeout}, and says in which stage it was stuck: the TLS handshake, the
 * preface, or the login.
 *
 * <p>Threading: armed, told of the preface and cancelled on the connection's event loop; the
 * deadline fires on the loop it was armed on.
 */
final class LoginDeadline {
    /** Its line is the login's: logged as the control handler. */
    private static final Logger log = LoggerFactory.getLogger(ServerControlHandler.class);

    private final int seconds;
    private ScheduledFuture<?> task;
    private boolean prefaceSeen;

    /** @param seconds {@code transport.loginTimeout} */
    LoginDeadline(int seconds) {
        this.seconds = seconds;
    }

    /** Arms the deadline as the connection becomes active; at expiry it closes unless {@code loggedIn}. */
    void start(ChannelHandlerContext ctx, BooleanSupplier loggedIn) {
        task = ctx.executor().schedule(() -> {
            if (!loggedIn.getAsBoolean() && ctx.channel().isActive()) {
                SslHandler tls = ctx.pipeline().get(SslHandler.class);
                String stage = tls != null && !tls.handshakeFuture().isDone() ? "TLS handshake"
                        : prefaceSeen ? "login" : "preface";
                log.warn("{} closing: no login within {} s (transport.loginTimeout; stuck in {})", ctx.channel(),
                        seconds, stage);
                ctx.close();
            }
        }, seconds, TimeUnit.SECONDS);
    }

    /** The client's preface came: a connection stuck from now on is stuck in the login. */
    void prefaceSeen() {
        prefaceSeen = true;
    }

    /** The connection logged in, closed, or turned out to be a work connection; safe before {@link #start}. */
    void cancel() {
        if (task != null) {
            task.cancel(false);
        }
    }
}
