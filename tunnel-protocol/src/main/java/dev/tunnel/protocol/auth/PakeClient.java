package dev.tunnel.protocol.auth;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.math.BigInteger;
import java.util.Base64;
import org.bouncycastle.crypto.agreement.srp.SRP6Util;

/**
 * The client's half of one SRP-6a login (RFC 5054, {@link PakeSuite}): {@link #start} takes
 * {@code a} with {@code A = g^a} (computed ahead, {@link Ephemerals}), sent before the client knows
 * its salt (SRP-6a allows either order); {@link #finish} takes the server's salt and {@code B}
 * and computes the premaster secret {@code S = (B - k·g^x)^(a + u·x)}: one exponentiation of
 * about 640 bits, plus a blinded {@code g^x} the first time this process meets the salt
 * ({@link KnownVerifiers}).
 *
 * <p>The formula is BouncyCastle's {@code SRP6Client}'s, written out because that class
 * recomputes and blinds {@code g^x} and blinds {@code a + u·x} to 2056 bits on every login, about
 * 3 ms each (docs/security.md says why a 640-bit {@code a} is safe unblinded;
 * {@code SrpVectorsTest} checks the formula against RFC 5054's vectors).
 *
 * <p>Threading: {@link #start} and {@link #finish} may run on any thread, one after the other
 * (the instance is handed from one to the next through a future); the instance is used once.
 */
public final class PakeClient {
    private final byte[] password;
    private final BigInteger a;
    private final BigInteger clientPublicValue;
    private final String clientPublic;

    private PakeClient(String token, Ephemeral ephemeral) {
        this.password = PakeSuite.password(token);
        this.a = ephemeral.exponent;
        this.clientPublicValue = ephemeral.power;
        this.clientPublic = PakeSuite.encode(clientPublicValue);
    }

    /**
     * This login's secret exponent and {@code A} from {@code ephemeral}, which must never have
     * been used and must have {@link PakeSuite#CLIENT_EXPONENT_BITS} bits (fast).
     */
    public static PakeClient start(String token, Ephemeral ephemeral) {
        if (ephemeral.exponent.bitLength() != PakeSuite.CLIENT_EXPONENT_BITS) {
            throw new IllegalArgumentException("the client's exponent must have " + PakeSuite.CLIENT_EXPONENT_BITS + " bits");
        }
        return new PakeClient(token, ephemeral);
    }

    /** Picks this login's secret exponent and computes {@code A} (one exponentiation). */
    public static PakeClient start(String token) {
        return new PakeClient(token, Ephemeral.fresh(PakeSuite.CLIENT_EXPONENT_BITS));
    }

    /** {@code A}, base64. */
    public String clientPublic() {
        return clientPublic;
    }

    /**
     * The secret this login agreed with a server that sent {@code salt} and {@code serverPublic}
     * (one exponentiation, two for a salt not met before).
     *
     * @throws IllegalArgumentException when the server's values are malformed or {@code B mod N = 0}
     */
    public PakeSecret finish(String salt, String serverPublic) {
        BigInteger x = x(salt);
        String what = "the server's public value";
        BigInteger b = PakeSuite.validated(PakeSuite.decode(serverPublic, what), what);
        BigInteger n = PakeSuite.GROUP.getN();
        BigInteger u = PakeSuite.scrambler(clientPublicValue, b);
        BigInteger premaster = premaster(n, KnownVerifiers.multipliedVerifier(x), b, u, x, a);
        return new PakeSecret(premaster, clientPublic, salt, serverPublic);
    }

    /**
     * Whether {@link #finish} for {@code salt} costs one exponentiation of 640 bits only (this
     * process met the salt before), short enough for an event loop, as a TLS handshake's own
     * computations are.
     */
    public boolean finishesQuickly(String salt) {
        try {
            return KnownVerifiers.knows(x(salt));
        } catch (IllegalArgumentException e) {
            return true; // finish fails at once
        }
    }

    private BigInteger x(String salt) {
        byte[] saltBytes;
        try {
            saltBytes = Base64.getDecoder().decode(salt);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the server's salt is not base64");
        }
        return SRP6Util.calculateX(PakeSuite.digest(), PakeSuite.GROUP.getN(), saltBytes, PakeSuite.IDENTITY, password);
    }

    /** {@code S = (B - k·g^x)^(a + u·x) mod N}, as BouncyCastle's {@code SRP6Client.calculateS}, unblinded. */
    static BigInteger premaster(BigInteger n, BigInteger kgx, BigInteger serverPublic, BigInteger u, BigInteger x,
                                BigInteger a) {
        return serverPublic.subtract(kgx).mod(n).modPow(u.multiply(x).add(a), n);
    }
}
