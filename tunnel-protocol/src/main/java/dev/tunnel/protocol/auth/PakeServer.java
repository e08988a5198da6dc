package dev.tunnel.protocol.auth;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.math.BigInteger;
import java.util.Base64;

/**
 * The server's half of one SRP-6a login (RFC 5054, {@link PakeSuite}), holding only the account's
 * {@link TokenVerifier}: {@link #start} takes a single-use {@code b} with {@code g^b} (precomputed,
 * {@link Ephemerals}) and computes {@code B = k·v + g^b}, one multiplication; {@link #agree}
 * takes the client's {@code A} and computes {@code S = (A·v^u)^b}, two exponentiations of 256
 * bits (under a millisecond): run it off the event loop.
 *
 * <p>The formulas are BouncyCastle's {@code SRP6Server}'s, written out because that class picks a
 * full-length {@code b} and blinds it to 2056 bits on each use, about 3 ms per exponentiation, and
 * cannot take a precomputed {@code g^b} (docs/security.md says why short unblinded exponents are
 * safe here; {@code SrpVectorsTest} checks both formulas against RFC 5054's vectors).
 *
 * <p>Threading: {@link #start} and {@link #agree} may run on any thread, one after the other
 * (handed on through a future); the instance is used once.
 */
public final class PakeServer {
    private final BigInteger verifier;
    private final BigInteger b;
    private final BigInteger serverPublicValue;
    private final String salt;
    private final String serverPublic;

    private PakeServer(TokenVerifier verifier, Ephemeral ephemeral) {
        BigInteger n = PakeSuite.GROUP.getN();
        this.verifier = verifier.verifier();
        this.b = ephemeral.exponent;
        this.serverPublicValue = serverPublic(n, PakeSuite.K, this.verifier, ephemeral.power);
        this.salt = Base64.getEncoder().encodeToString(verifier.salt());
        this.serverPublic = PakeSuite.encode(serverPublicValue);
    }

    /** This login's {@code B} for {@code verifier} from {@code ephemeral}, which must never have been used (fast). */
    public static PakeServer start(TokenVerifier verifier, Ephemeral ephemeral) {
        return new PakeServer(verifier, ephemeral);
    }

    /** Picks this login's secret exponent and computes {@code B} for {@code verifier} (one exponentiation). */
    public static PakeServer start(TokenVerifier verifier) {
        return new PakeServer(verifier, Ephemeral.fresh(PakeSuite.SERVER_EXPONENT_BITS));
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
     * The secret agreed with a client that sent {@code clientPublic} (two short exponentiations).
     *
     * @throws IllegalArgumentException when {@code A} is malformed or {@code A mod N = 0}
     */
    public PakeSecret agree(String clientPublic) {
        String what = "the client's public value";
        BigInteger a = PakeSuite.validated(PakeSuite.decode(clientPublic, what), what);
        BigInteger n = PakeSuite.GROUP.getN();
        BigInteger u = PakeSuite.scrambler(a, serverPublicValue);
        return new PakeSecret(premaster(n, verifier, u, a, b), clientPublic, salt, serverPublic);
    }

    /** {@code B = (k·v + g^b) mod N}, as BouncyCastle's {@code SRP6Server.generateServerCredentials}. */
    static BigInteger serverPublic(BigInteger n, BigInteger k, BigInteger verifier, BigInteger gb) {
        return k.multiply(verifier).add(gb).mod(n);
    }

    /** {@code S = (A·v^u)^b mod N}, as BouncyCastle's {@code SRP6Server.calculateS}, unblinded. */
    static BigInteger premaster(BigInteger n, BigInteger verifier, BigInteger u, BigInteger clientPublic, BigInteger b) {
        return verifier.modPow(u, n).multiply(clientPublic).mod(n).modPow(b, n);
    }
}
