package dev.tunnel.protocol.auth;

import java.nio.charset.StandardCharsets;
import org.bouncycastle.math.ec.ECPoint;

/**
 * What one PAKE login agreed before the transcript is complete: the two shares
 * ({@code shareP = X}, {@code shareV = Y}), {@code Z}, {@code V} and {@code w0} (RFC 9383). Both
 * sides turn it into the same {@link PakeKeys} once they know the rest of the transcript (the
 * user and the nonces, which travel in the {@code LOGIN} itself). Holds a secret: never logged.
 * Immutable and thread-safe.
 */
public final class PakeSecret {
    private static final byte[] CONTEXT_LABEL = "tunnel SPAKE2+ login v1".getBytes(StandardCharsets.US_ASCII);

    private final byte[] shareP;
    private final byte[] shareV;
    private final byte[] z;
    private final byte[] v;
    private final byte[] w0;

    PakeSecret(ECPoint shareP, ECPoint shareV, ECPoint z, ECPoint v, byte[] w0) {
        this.shareP = PakeSuite.encodePoint(shareP);
        this.shareV = PakeSuite.encodePoint(shareV);
        this.z = PakeSuite.encodePoint(z);
        this.v = PakeSuite.encodePoint(v);
        this.w0 = w0;
    }

    /**
     * The proofs and the session key for this login: RFC 9383's key schedule over the
     * transcript whose {@code Context} is a label, the server nonce, the client nonce and the
     * {@link ChannelBinding}'s 32 bytes (none without TLS), whose {@code idProver} is the user and
     * whose {@code idVerifier} is empty. The client's proof is {@code confirmP}, the server's
     * {@code confirmV}, the session key {@code K_shared} (all hex).
     */
    public PakeKeys keys(String user, String serverNonce, String clientNonce, ChannelBinding binding) {
        KeySchedule s = schedule(user, serverNonce, clientNonce, binding);
        return new PakeKeys(TokenMac.hex(s.confirmP()), TokenMac.hex(s.confirmV()), TokenMac.hex(s.shared()));
    }

    KeySchedule schedule(String user, String serverNonce, String clientNonce, ChannelBinding binding) {
        byte[] context = concat(CONTEXT_LABEL, TranscriptWriter.fields(TokenMac.utf8(serverNonce),
                TokenMac.utf8(clientNonce), binding.bytes()));
        return scheduleFor(context, TokenMac.utf8(user), new byte[0]);
    }

    /** The key schedule over this secret with any context and identities (RFC 9383's vectors use their own). */
    KeySchedule scheduleFor(byte[] context, byte[] idProver, byte[] idVerifier) {
        return KeySchedule.of(context, idProver, idVerifier, shareP, shareV, z, v, w0);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Override
    public String toString() {
        return "PakeSecret[hidden]";
    }
}
