package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.util.Base64;
import org.bouncycastle.crypto.CryptoException;
import org.bouncycastle.crypto.agreement.srp.SRP6Client;
import org.bouncycastle.crypto.agreement.srp.SRP6Util;

/**
 * The client's half of one SRP-6a login (RFC 5054 arithmetic by BouncyCastle, {@link PakeSuite}):
 * {@link #start} picks {@code a} and computes {@code A = g^a}, sent before the client knows its
 * salt (SRP-6a allows either order); {@link #finish} takes the server's salt and {@code B} and
 * computes the premaster secret {@code S = (B - k·g^x)^(a + u·x)}. Each step costs one or two
 * modular exponentiations of a few milliseconds: run them off the event loop.
 *
 * <p>Threading: {@link #start} and {@link #finish} may run on any thread, one after the other
 * (the instance is handed from one to the next through a future); the instance is used once.
 */
public final class PakeClient {
    private final Srp srp = new Srp();
    private final byte[] password;
    private final String clientPublic;

    private PakeClient(String token) {
        this.password = PakeSuite.password(token);
        srp.init(PakeSuite.GROUP, PakeSuite.digest(), PakeSuite.RANDOM);
        // x is set again with the real salt in finish(); A does not depend on it.
        this.clientPublic = PakeSuite.encode(srp.generateClientCredentials(new byte[0], PakeSuite.IDENTITY, password));
    }

    /** Picks this login's secret exponent and computes {@code A} (slow). */
    public static PakeClient start(String token) {
        return new PakeClient(token);
    }

    /** {@code A}, base64. */
    public String clientPublic() {
        return clientPublic;
    }

    /**
     * The secret this login agreed with a server that sent {@code salt} and {@code serverPublic}
     * (slow).
     *
     * @throws IllegalArgumentException when the server's values are malformed or {@code B mod N = 0}
     */
    public PakeSecret finish(String salt, String serverPublic) {
        byte[] saltBytes;
        try {
            saltBytes = Base64.getDecoder().decode(salt);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the server's salt is not base64");
        }
        BigInteger b = PakeSuite.decode(serverPublic, "the server's public value");
        srp.useSalt(saltBytes, PakeSuite.IDENTITY, password);
        try {
            return new PakeSecret(srp.calculateSecret(b), clientPublic, salt, serverPublic);
        } catch (CryptoException e) {
            throw new IllegalArgumentException("the server's public value is invalid: " + e.getMessage());
        }
    }

    /**
     * BouncyCastle's client, with x recomputed for the salt that arrives after A went out
     * ({@code SrpVectorsTest} runs it on RFC 5054's test vectors).
     */
    static class Srp extends SRP6Client {
        void useSalt(byte[] salt, byte[] identity, byte[] password) {
            x = SRP6Util.calculateX(digest, N, salt, identity, password);
        }
    }
}
