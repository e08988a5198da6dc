package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bouncycastle.util.BigIntegers;

/**
 * The client's {@code k·g^x} for the few {@code x} (one per token and salt, that is per server
 * account) this process logged in with lately, so that a login after the first costs the client
 * one exponentiation instead of two. The one exponentiation whose exponent depends on the token
 * alone, {@code g^x}, runs once per salt and is blinded with a random multiple of N-1
 * (BouncyCastle's {@code createBlindedExponent}, as its {@code SRP6Client} does). At most
 * {@link #SIZE} entries, least recently used first out. The entries are as secret as the token
 * (each is the verifier of one account): only in memory, never logged.
 *
 * <p>Thread-safe: one per process, used from worker threads.
 */
final class KnownVerifiers {
    static final int SIZE = 8;

    private static final Map<BigInteger, BigInteger> BY_X = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<BigInteger, BigInteger> eldest) {
            return size() > SIZE;
        }
    };

    private KnownVerifiers() {
    }

    /** Whether {@code k·g^x} for {@code x} is in memory. */
    static boolean knows(BigInteger x) {
        synchronized (BY_X) {
            return BY_X.containsKey(x);
        }
    }

    /** {@code k·g^x mod N}, from memory or computed (one blinded full-length exponentiation). */
    static BigInteger multipliedVerifier(BigInteger x) {
        synchronized (BY_X) {
            BigInteger known = BY_X.get(x);
            if (known != null) {
                return known;
            }
        }
        BigInteger n = PakeSuite.GROUP.getN();
        BigInteger gx = PakeSuite.power(BigIntegers.createBlindedExponent(x, n.subtract(BigInteger.ONE), PakeSuite.RANDOM));
        BigInteger kgx = PakeSuite.K.multiply(gx).mod(n);
        synchronized (BY_X) {
            BY_X.put(x, kgx);
        }
        return kgx;
    }
}
