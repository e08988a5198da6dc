package dev.tunnel.tls;

import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.internal.tcnative.SSL;
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
 * <p>Only the OpenSSL provider tells whether a session was resumed; with the JDK's every
 * handshake counts as full. Threading: {@link #record} on the connection's event loop once its
 * handshake succeeded; the counts may be read from any thread.
 */
public final class TlsSessions {
    private final LongAdder full = new LongAdder();
    private final LongAdder resumed = new LongAdder();

    /** Counts the handshake of {@code tls} (which must have succeeded); returns whether it resumed a session. */
    public boolean record(SslHandler tls) {
        boolean wasResumed = resumed(tls.engine());
        (wasResumed ? resumed : full).increment();
        return wasResumed;
    }

    public long full() {
        return full.sum();
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

    @Override
    public String toString() {
        return resumed() + " of " + (full() + resumed()) + " TLS handshakes resumed";
    }
}
