package dev.tunnel.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.HKDFParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * RFC 9383's key schedule (section 3.4) for one transcript: {@code K_main = SHA-256(TT)};
 * {@code K_confirmP || K_confirmV = HKDF(nil, K_main, "ConfirmationKeys")};
 * {@code K_shared = HKDF(nil, K_main, "SharedKey")}; {@code confirmP = HMAC(K_confirmP, shareV)}
 * and {@code confirmV = HMAC(K_confirmV, shareP)}. HKDF, HMAC and SHA-256 are BouncyCastle's.
 * Holds secrets: {@link #toString()} leaves them out. Immutable.
 *
 * @param transcript TT
 */
record KeySchedule(byte[] transcript, byte[] main, byte[] confirmKeyP, byte[] confirmKeyV, byte[] shared,
                   byte[] confirmP, byte[] confirmV) {

    /** The schedule of the transcript of {@code context}, the identities, the shares, {@code Z}, {@code V} and {@code w0}. */
    static KeySchedule of(byte[] context, byte[] idProver, byte[] idVerifier, byte[] shareP, byte[] shareV,
                          byte[] z, byte[] v, byte[] w0) {
        byte[] tt = TranscriptWriter.fields(context, idProver, idVerifier, PakeSuite.encodePoint(PakeSuite.M),
                PakeSuite.encodePoint(PakeSuite.N), shareP, shareV, z, v, w0);
        SHA256Digest digest = new SHA256Digest();
        digest.update(tt, 0, tt.length);
        byte[] main = new byte[32];
        digest.doFinal(main, 0);
        byte[] confirmKeys = hkdf(main, "ConfirmationKeys", 64);
        byte[] keyP = Arrays.copyOfRange(confirmKeys, 0, 32);
        byte[] keyV = Arrays.copyOfRange(confirmKeys, 32, 64);
        return new KeySchedule(tt, main, keyP, keyV, hkdf(main, "SharedKey", 32), hmac(keyP, shareV), hmac(keyV, shareP));
    }

    private static byte[] hkdf(byte[] ikm, String info, int length) {
        HKDFBytesGenerator hkdf = new HKDFBytesGenerator(new SHA256Digest());
        hkdf.init(new HKDFParameters(ikm, null, info.getBytes(StandardCharsets.US_ASCII)));
        byte[] out = new byte[length];
        hkdf.generateBytes(out, 0, length);
        return out;
    }

    private static byte[] hmac(byte[] key, byte[] message) {
        HMac mac = new HMac(new SHA256Digest());
        mac.init(new KeyParameter(key));
        mac.update(message, 0, message.length);
        byte[] out = new byte[mac.getMacSize()];
        mac.doFinal(out, 0);
        return out;
    }

    @Override
    public String toString() {
        return "KeySchedule[hidden]";
    }
}
