package dev.tunnel.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/** Random test payloads and their SHA-256, as hex so a failed assertion reads well. */
final class Payloads {
    private Payloads() {
    }

    static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    static String hex(MessageDigest digest) {
        return HexFormat.of().formatHex(digest.digest());
    }

    /** Reads {@code in} to EOF without keeping it: the byte count and the SHA-256. */
    static Summary drain(InputStream in) throws IOException {
        MessageDigest digest = sha256();
        byte[] buf = new byte[64 * 1024];
        long total = 0;
        int n;
        while ((n = in.read(buf)) >= 0) {
            digest.update(buf, 0, n);
            total += n;
        }
        return new Summary(total, hex(digest));
    }

    static Summary summary(byte[] bytes) {
        return new Summary(bytes.length, sha256(bytes));
    }

    /** What a peer saw: how many bytes and their checksum. */
    record Summary(long bytes, String sha256) {
    }
}
