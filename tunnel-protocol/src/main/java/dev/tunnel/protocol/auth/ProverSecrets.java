package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bouncycastle.math.ec.ECPoint;

/**
 * The client's {@code w0}, {@code w1}, {@code w0·M} and {@code w0·N} for one token and salt (one
 * server account), and the few this process used lately: the PBKDF2 that derives them (a few ms,
 * {@link PakeSuite#secrets}) and the two fixed-point multiplications then run once per account and
 * process, not once per login. At most {@link #SIZE} entries, least recently used first out. The
 * entries are as secret as the token: only in memory, never logged.
 *
 * <p>Thread-safe: one cache per process, used from event loops and worker threads.
 */
final class ProverSecrets {
    static final int SIZE = 8;

    private record Key(String token, String salt) {
        @Override
        public String toString() {
            return "Key[hidden]";
        }
    }

    private static final Map<Key, ProverSecrets> KNOWN = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, ProverSecrets> eldest) {
            return size() > SIZE;
        }
    };

    final BigInteger w0;
    final BigInteger w1;
    final ECPoint w0m;
    final ECPoint w0n;
    final byte[] w0Bytes;

    ProverSecrets(BigInteger w0, BigInteger w1) {
        this.w0 = w0;
        this.w1 = w1;
        this.w0m = PakeSuite.M.multiply(w0).normalize();
        this.w0n = PakeSuite.N.multiply(w0).normalize();
        this.w0Bytes = PakeSuite.scalarBytes(w0);
    }

    /** Whether the secrets of {@code token} under {@code salt} (base64, as sent) are in memory. */
    static boolean known(String token, String salt) {
        synchronized (KNOWN) {
            return KNOWN.containsKey(new Key(token, salt));
        }
    }

    /**
     * The secrets of {@code token} under {@code salt} (base64, as sent), from memory or derived.
     *
     * @throws IllegalArgumentException when the salt is not base64 or has a length outside 16-64 bytes
     */
    static ProverSecrets of(String token, String salt) {
        Key key = new Key(token, salt);
        synchronized (KNOWN) {
            ProverSecrets known = KNOWN.get(key);
            if (known != null) {
                return known;
            }
        }
        byte[] bytes;
        try {
            bytes = java.util.Base64.getDecoder().decode(salt);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the server's salt is not base64");
        }
        if (bytes.length < 16 || bytes.length > 64) {
            throw new IllegalArgumentException("the server's salt has " + bytes.length + " bytes (expected: 16-64)");
        }
        BigInteger[] w = PakeSuite.secrets(token, bytes);
        ProverSecrets derived = new ProverSecrets(w[0], w[1]);
        synchronized (KNOWN) {
            KNOWN.put(key, derived);
        }
        return derived;
    }

    @Override
    public String toString() {
        return "ProverSecrets[hidden]";
    }
}
