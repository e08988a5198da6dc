package dev.tunnel.protocol.auth;

import java.io.ByteArrayOutputStream;

/**
 * RFC 9383's encoding of a sequence of byte strings: each as its length, 8 bytes little-endian,
 * then its bytes (the transcript TT and the PBKDF input). Stateless.
 */
final class TranscriptWriter {
    private TranscriptWriter() {
    }

    static byte[] fields(byte[]... fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] field : fields) {
            long length = field.length;
            for (int i = 0; i < 8; i++) {
                out.write((int) (length >>> (8 * i)));
            }
            out.writeBytes(field);
        }
        return out.toByteArray();
    }
}
