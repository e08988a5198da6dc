package dev.tunnel.server;

import dev.tunnel.runtime.BurstLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides on accept, before the connection's pipeline is built, whether a new connection to
 * {@code bindPort} goes on: one from an address blocked after failed logins ({@link LoginThrottle})
 * or over the handshake rates ({@link HandshakeThrottle}) is reset at once, so it costs an accept
 * and a close: no TLS engine, no crypto, no connection left in TIME_WAIT. An address with a
 * A connection over the server-wide rate but within its bounded wait goes on after that wait
 * ({@link HandshakeThrottle}: a login storm is paced, not refused). An address with a
 * logged-in client is not held to the handshake rates: its further connections are that client's
 * work connections (pool mode opens one per public connection). Refusals an attacker
 * can repeat at will are logged once per burst ({@link BurstLog}).
 *
 * <p>Threading: called on the accepted connection's event loop; the throttles are thread-safe.
 */
final class ConnectionGate {
    private static final Logger log = LoggerFactory.getLogger(ConnectionGate.class);

    private final LoginThrottle logins;
    private final HandshakeThrottle handshakes;
    private final SessionRegistry sessions;
    private final BurstLog overAddressRate = new BurstLog(log);
    private final BurstLog overServerRate = new BurstLog(log);

    ConnectionGate(LoginThrottle logins, HandshakeThrottle handshakes, SessionRegistry sessions) {
        this.sessions = sessions;
        this.logins = logins;
        this.handshakes = handshakes;
    }

    /** Returned by {@link #admit} for a connection that was refused (and closed). */
    static final long REFUSED = -1;

    /**
     * Whether {@code ch}, just accepted, may go on, and when: {@link #REFUSED} (it was closed and
     * the refusal logged), 0 (at once) or the nanoseconds it waits for its turn first.
     */
    long admit(Channel ch) {
        InetAddress address = ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        if (address == null) {
            return 0;
        }
        long blocked = logins.blockedFor(address);
        if (blocked > 0) {
            log.debug("{} refused: {} is blocked for {} s more after failed logins", ch, address,
                    (blocked + 999) / 1000);
            ch.close(); // a FIN: its client says the server closed the connection before answering
            return REFUSED;
        }
        if (sessions.hasClientAt(address)) {
            return 0;
        }
        HandshakeThrottle.Admission admission = handshakes.admitPaced(address);
        switch (admission.verdict()) {
            case ADMITTED -> {
                return admission.waitNanos();
            }
            case OVER_ADDRESS_RATE -> overAddressRate.warn("{} refused: {} opens more than {} connections a second"
                    + " (transport.handshakeRatePerIP; connections over it are reset before TLS)", ch, address,
                    handshakes.ratePerAddress());
            case OVER_SERVER_RATE -> overServerRate.warn("{} refused: new connections over all addresses exceed"
                    + " transport.handshakeRate for longer than {} s of waiting (connections over it are reset"
                    + " before TLS)", ch, TimeUnit.NANOSECONDS.toSeconds(MAX_WAIT_NANOS));
        }
        reset(ch);
        return REFUSED;
    }

    /** Longest a new connection over {@code transport.handshakeRate} waits for its turn before it is refused. */
    static final long MAX_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** Connections that waited for their turn so far. */
    long paced() {
        return handshakes.paced();
    }

    /** Refused connections so far, over either rate (the failed-login block is not counted). */
    long refused() {
        return handshakes.refused();
    }

    /** Closes with a reset: nothing to flush, and no TIME_WAIT kept on the server for the peer. */
    private static void reset(Channel ch) {
        ch.config().setOption(ChannelOption.SO_LINGER, 0);
        ch.close();
    }
}
