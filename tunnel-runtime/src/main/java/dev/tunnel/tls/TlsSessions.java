package dev.tunnel.tls;

import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.internal.tcnative.SSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLEngine;

/**
 * Counts how the TLS handshakes of one kind of connection went: full (certificate, signature,
 * key exchange) or resumed (TLS 1.3 pre-shared key from a session ticket of an earlier
 * connection to the same server, which skips the server's signature and the client's
 * certificate check).
 *
 * <p>Resumption needs nothing from the caller beyond what {@link TlsContexts} builds: BoringSSL
 * servers send two tickets after each handshake (the keys are the context's own, random per
 * process, so a restarted server makes every client handshake in full once), and a client context
 * keeps them per server host and port when its handler is made by
 * {@link TlsContexts#newClientHandler}; each ticket is used once, and every resumed connection
 * brings new ones. A resumed connection reports the peer certificate of the session it resumed,
 * the one checked when that session began, so a login binding to it
 * ({@code auth.ChannelBinding}) holds as on a full handshake.
 *
 * <h3>Key exchange of a resumed connection</h3>
 * BoringSSL's default ClientHello carries two key shares, the hybrid X25519MLKEM768 and X25519,
 * and the server takes the hybrid: an ML-KEM key generation and decapsulation on the client, an
 * encapsulation on the server, on top of the X25519 work, per handshake. A connection that
 * resumes does not need the post-quantum part again to stay post-quantum: TLS 1.3 mixes the
 * session's pre-shared key into its key schedule before the fresh (EC)DHE secret, and that key
 * comes, through every resumption in between, from a full handshake that used the hybrid. So a
 * client that expects to resume (a pool work connection) may offer X25519 alone
 * ({@link #offerX25519Only}); if its handshake turns out full after all (no ticket was left, or
 * the server did not take it), the client must not use that connection, nor keep its tickets:
 * it closes it as soon as the handshake completes, before the server's tickets arrive, and
 * connects again with the default groups ({@link #needsDefaultGroups}). What X25519 alone gives
 * up: against an attacker who records traffic now, later breaks X25519 and also steals the
 * server's ticket keys, a resumed connection is as safe as X25519.
 *
 * <p>Only the OpenSSL provider tells whether a session was resumed; with the JDK's every
 * handshake counts as full. Threading: {@link #record} on the connection's event loop once its
 * handshake succeeded; the counts may be read from any thread.
 */
public final class TlsSessions {
    private static final Logger LOG = LoggerFactory.getLogger(TlsSessions.class);
    /** The group a connection that expects to resume offers: X25519 alone (see the class comment). */
    static final String RESUMPTION_GROUP = "X25519";

    private final LongAdder full = new LongAdder();
    private final LongAdder resumed = new LongAdder();
    private final LongAdder abandoned = new LongAdder();

    /** Counts the handshake of {@code tls} (which must have succeeded); returns whether it resumed a session. */
    public boolean record(SslHandler tls) {
        boolean wasResumed = resumed(tls.engine());
        (wasResumed ? resumed : full).increment();
        return wasResumed;
    }

    /**
     * Counts a handshake made with X25519 alone that did not resume, whose connection was
     * abandoned ({@link #needsDefaultGroups}); it is not counted as full or resumed.
     */
    public void abandoned() {
        abandoned.increment();
    }

    public long full() {
        return full.sum();
    }

    /** Handshakes that offered X25519 alone, did not resume, and whose connection was closed unused. */
    public long abandonedCount() {
        return abandoned.sum();
    }

    public long resumed() {
        return resumed.sum();
    }

    /** Whether the finished handshake of {@code engine} resumed an earlier session (false when the provider cannot tell). */
    public static boolean resumed(SSLEngine engine) {
        if (engine instanceof ReferenceCountedOpenSslEngine openSsl) {
            synchronized (openSsl) {
                long ssl = openSsl.sslPointer();
                return ssl != 0 && SSL.isSessionReused(ssl);
            }
        }
        return false;
    }

    /**
     * Makes the not yet started handshake of {@code tls} (a client) offer X25519 alone, for a
     * connection that expects to resume; see the class comment for what the caller must do if
     * it does not. Returns false, changing nothing, when the provider is not OpenSSL.
     */
    public static boolean offerX25519Only(SslHandler tls) {
        if (tls.engine() instanceof ReferenceCountedOpenSslEngine openSsl) {
            synchronized (openSsl) {
                long ssl = openSsl.sslPointer();
                if (ssl != 0 && SSL.setCurvesList(ssl, RESUMPTION_GROUP)) {
                    return true;
                }
            }
            LOG.debug("cannot restrict the key exchange to {}: the default groups stay", RESUMPTION_GROUP);
        }
        return false;
    }

    /**
     * Whether the finished handshake of {@code tls}, made after {@link #offerX25519Only}, was full:
     * then its connection must be closed unused and made again with the default groups.
     */
    public static boolean needsDefaultGroups(SslHandler tls) {
        return !resumed(tls.engine());
    }

    /** The key-exchange group the finished handshake of {@code engine} used, or "" when the provider does not tell. */
    public static String group(SSLEngine engine) {
        if (engine instanceof ReferenceCountedOpenSslEngine openSsl) {
            synchronized (openSsl) {
                long ssl = openSsl.sslPointer();
                try {
                    return ssl == 0 ? "" : String.valueOf(SSL.getGroupName(ssl));
                } catch (Exception e) {
                    return "";
                }
            }
        }
        return "";
    }

    @Override
    public String toString() {
        long gaveUp = abandonedCount();
        return resumed() + " of " + (full() + resumed()) + " TLS handshakes resumed"
                + (gaveUp == 0 ? "" : ", " + gaveUp + " made again with the default groups");
    }
}
