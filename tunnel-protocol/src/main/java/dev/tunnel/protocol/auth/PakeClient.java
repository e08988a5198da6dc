package dev.tunnel.protocol.auth;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import org.bouncycastle.math.ec.ECPoint;

/**
 * The client's (the prover's) half of one SPAKE2+ login (RFC 9383, {@link PakeSuite}):
 * {@link #start} takes a single-use {@code x} with {@code x·P} (computed ahead, {@link Ephemerals});
 * {@link #finish} takes the server's salt and {@code Y}, and computes {@code X = x·P + w0·M},
 * {@code Z = x·(Y - w0·N)} and {@code V = w1·(Y - w0·N)}: two variable-base multiplications,
 * plus the PBKDF2 of {@code w0}, {@code w1} the first time this process meets the salt
 * ({@link ProverSecrets}).
 *
 * <p>Threading: {@link #start} and {@link #finish} may run on any thread, one after the other
 * (the instance is handed from one to the next through a future); the instance is used once.
 */
public final class PakeClient {
    private final String token;
    private final Ephemeral x;
    private String clientShare;

    private PakeClient(String token, Ephemeral x) {
        this.token = token;
        this.x = x;
    }

    /** This login's secret scalar and {@code x·P} from {@code ephemeral}, which must never have been used. */
    public static PakeClient start(String token, Ephemeral ephemeral) {
        return new PakeClient(token, ephemeral);
    }

    /** Picks this login's secret scalar. */
    public static PakeClient start(String token) {
        return new PakeClient(token, Ephemeral.fresh());
    }

    /**
     * The secret this login agreed with a server that sent {@code salt} and {@code serverShare}
     * ({@code Y}); then {@link #clientShare()} is {@code X}.
     *
     * @throws IllegalArgumentException when the server's values are malformed, off the curve, or
     *                                  {@code Y - w0·N} is the identity
     */
    public PakeSecret finish(String salt, String serverShare) {
        ProverSecrets w = ProverSecrets.of(token, salt);
        return finish(w, PakeSuite.decode(serverShare, "the server's share"));
    }

    PakeSecret finish(ProverSecrets w, ECPoint y) {
        ECPoint shareP = x.point.add(w.w0m).normalize();
        ECPoint t = PakeSuite.nonIdentity(y.subtract(w.w0n), "the server's share less w0·N");
        ECPoint z = t.multiply(x.scalar);
        ECPoint v = t.multiply(w.w1);
        clientShare = PakeSuite.encode(shareP);
        return new PakeSecret(shareP, y, PakeSuite.nonIdentity(z, "Z"), PakeSuite.nonIdentity(v, "V"), w.w0Bytes);
    }

    /** {@code X}, base64, once {@link #finish} ran. */
    public String clientShare() {
        if (clientShare == null) {
            throw new IllegalStateException("X is computed by finish");
        }
        return clientShare;
    }

    /**
     * Whether {@link #finish} for {@code salt} costs two multiplications only (this process met
     * the salt before), short enough for an event loop, as a TLS handshake's own computations are.
     */
    public boolean finishesQuickly(String salt) {
        return ProverSecrets.known(token, salt);
    }

    @Override
    public String toString() {
        return "PakeClient[hidden]";
    }
}
