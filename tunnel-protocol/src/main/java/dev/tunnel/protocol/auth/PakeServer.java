package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.util.Base64;
import org.bouncycastle.crypto.CryptoException;
import org.bouncycastle.crypto.agreement.srp.SRP6Server;

/**
 * The server's half of one SRP-6a login (RFC 5054 arithmetic by BouncyCastle, {@link PakeSuite}),
 * holding only the account's {@link TokenVerifier}: {@link #start} picks {@code b} and computes
 * {@code B = k·v + g^b}; {@link #agree} takes the client's {@code A} and computes
 * {@code S = (A·v^u)^b}. Each step costs one or two modular exponentiations of a few
 * milliseconds: run them off the event loop.
 *
 * <p>Threading: {@link #start} and {@link #agree} may run on any thread, one after the other
 * (handed on through a future); the instance is used once.
 */
public final class PakeServer {
    private final SRP6Server srp = new SRP6Server();
    private final String salt;
    private final String serverPublic;

    private PakeServer(TokenVerifier verifier) {
        srp.init(PakeSuite.GROUP, verifier.verifier(), PakeSuite.digest(), PakeSuite.RANDOM);
        this.salt = Base64.getEncoder().encodeToString(verifier.salt());
        this.serverPublic = PakeSuite.encode(srp.generateServerCredentials());
    }

    /** Picks this login's secret exponent and computes {@code B} for {@code verifier} (slow). */
    public static PakeServer start(TokenVerifier verifier) {
        return new PakeServer(verifier);
    }

    /** The account's salt, base64. */
    public String salt() {
        return salt;
    }

    /** {@code B}, base64. */
    public String serverPublic() {
        return serverPublic;
    }

    /**
     * The secret agreed with a client that sent {@code clientPublic} (slow).
     *
     * @throws IllegalArgumentException when {@code A} is malformed or {@code A mod N = 0}
     */
    public PakeSecret agree(String clientPublic) {
        BigInteger a = PakeSuite.decode(clientPublic, "the client's public value");
        try {
            return new PakeSecret(srp.calculateSecret(a), clientPublic, salt, serverPublic);
        } catch (CryptoException e) {
            throw new IllegalArgumentException("the client's public value is invalid: " + e.getMessage());
        }
    }
}
