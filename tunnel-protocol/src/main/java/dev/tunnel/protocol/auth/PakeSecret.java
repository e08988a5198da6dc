package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.util.BigIntegers;

/**
 * What one PAKE login agreed: {@code K = SHA-256(PAD(S))} from the SRP-6a premaster secret
 * {@code S}, and the public values it was agreed over. Both sides turn it into the same
 * {@link PakeKeys} once they know the rest of the transcript. Holds a secret: never logged.
 * Immutable and thread-safe.
 */
public final class PakeSecret {
    private static final byte[] CLIENT_LABEL = label("client");
    private static final byte[] SERVER_LABEL = label("server");
    private static final byte[] SESSION_LABEL = label("session");

    private final byte[] key;
    private final String clientPublic;
    private final String salt;
    private final String serverPublic;

    PakeSecret(BigInteger premaster, String clientPublic, String salt, String serverPublic) {
        Digest digest = PakeSuite.digest();
        byte[] padded = BigIntegers.asUnsignedByteArray(PakeSuite.LENGTH, premaster);
        digest.update(padded, 0, padded.length);
        this.key = new byte[digest.getDigestSize()];
        digest.doFinal(key, 0);
        this.clientPublic = clientPublic;
        this.salt = salt;
        this.serverPublic = serverPublic;
    }

    /**
     * The proofs and the session key for this login:
     * {@code HMAC-SHA256(K, label || user || sn || cn || A || salt || B || cb)} with the encoding
     * of {@link LoginProof} (each field a u32 big-endian length and its bytes; the public values
     * and the salt as their base64 text, the nonces as their hex text, {@code cb} the
     * {@link ChannelBinding}'s 32 bytes or none).
     */
    public PakeKeys keys(String user, String serverNonce, String clientNonce, ChannelBinding binding) {
        byte[][] fields = {TokenMac.utf8(user), TokenMac.utf8(serverNonce), TokenMac.utf8(clientNonce),
            TokenMac.utf8(clientPublic), TokenMac.utf8(salt), TokenMac.utf8(serverPublic), binding.bytes()};
        return new PakeKeys(TokenMac.hex(TokenMac.raw(key, CLIENT_LABEL, fields)),
                TokenMac.hex(TokenMac.raw(key, SERVER_LABEL, fields)),
                TokenMac.hex(TokenMac.raw(key, SESSION_LABEL, fields)));
    }

    private static byte[] label(String role) {
        return ("tunnel-pake-v1 " + role).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return "PakeSecret[hidden]";
    }
}
