package dev.tunnel.server;

import dev.tunnel.protocol.transport.LoopMove;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a new session runs: a control connection whose login passed is moved to the event loop
 * with the fewest sessions ({@link SessionRegistry#quietestLoop}) before its session starts
 * there, so that sessions spread over the loops however their connections happened to be
 * accepted. Nothing is read meanwhile (what the client sent behind its login waits in the
 * decoder and the socket). Where the transport cannot move a channel (io_uring) the session
 * stays where the connection was accepted.
 *
 * <p>Threading: called on the connection's event loop; the session starts on the loop it ends up on.
 */
final class SessionPlacement {
    /** Its lines are the login's: logged as the control handler. */
    private static final Logger log = LoggerFactory.getLogger(ServerControlHandler.class);

    private SessionPlacement() {
    }

    /**
     * Moves {@code channel} to its session's loop, then runs {@code start} there, unless the
     * channel closed or {@code refused} turned true meanwhile; at once when it stays.
     */
    static void placeThenStart(Channel channel, SessionRegistry sessions, BooleanSupplier refused, Runnable start) {
        EventLoop home = sessions.quietestLoop(channel.eventLoop());
        if (home == channel.eventLoop() || !LoopMove.canMove(channel)) {
            start.run();
            return;
        }
        boolean autoRead = channel.config().isAutoRead();
        channel.config().setAutoRead(false);
        LoopMove.moveTo(channel, home, failure -> {
            if (failure != null) {
                log.warn("{} login dropped: moving the connection to another event loop failed: {}", channel,
                        failure.toString());
            } else if (channel.isActive() && !refused.getAsBoolean()) {
                channel.config().setAutoRead(autoRead);
                start.run();
            }
        });
    }
}
