package dev.tunnel.protocol.auth;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.math.BigInteger;
import org.bouncycastle.math.ec.ECPoint;

/**
 * The server's (the verifier's) half of one SPAKE2+ login (RFC 9383, {@link PakeSuite}), holding
 * only the account's {@link TokenVerifier}: {@link #start} takes a single-use {@code y} with
 * {@code y·P} (precomputed, {@link Ephemerals}) and computes {@code Y = y·P + w0·N}, one point
 * addition; {@link #prepare} computes {@code V = y·L} with the verifier's comb table of {@code L}
 * (a fixed-base multiplication), which needs nothing from the client, so the
 * server can compute it while the client computes its own values; {@link #agree} takes the
 * client's {@code X} and computes {@code Z = y·(X - w0·M)}, one multiplication.
 *
 * <p>Threading: the methods may run on any thread, one after the other (handed on through a
 * future or on one event loop); the instance is used once.
 */
public final class PakeServer {
    private final TokenVerifier verifier;
    private final BigInteger y;
    private final ECPoint shareV;
    private final String serverShare;
    private ECPoint v;

    private PakeServer(TokenVerifier verifier, Ephemeral ephemeral) {
        this.verifier = verifier;
        this.y = ephemeral.scalar;
        this.shareV = ephemeral.point.add(verifier.w0n()).normalize();
        this.serverShare = PakeSuite.encode(shareV);
    }

    /** This login's {@code Y} for {@code verifier} from {@code ephemeral}, which must never have been used. */
    public static PakeServer start(TokenVerifier verifier, Ephemeral ephemeral) {
        return new PakeServer(verifier, ephemeral);
    }

    /** Picks this login's secret scalar and computes {@code Y} for {@code verifier} (one fixed-base multiplication). */
    public static PakeServer start(TokenVerifier verifier) {
        return new PakeServer(verifier, Ephemeral.fresh());
    }

    /** The account's salt, base64. */
    public String salt() {
        return verifier.saltText();
    }

    /** {@code Y}, base64. */
    public String serverShare() {
        return serverShare;
    }

    /** Computes {@code V = y·L} ahead of {@link #agree} (a fixed-base multiplication, {@link TokenVerifier}); idempotent. */
    public void prepare() {
        if (v == null) {
            v = PakeSuite.nonIdentity(verifier.timesL(y), "V");
        }
    }

    /**
     * The secret agreed with a client that sent {@code clientShare} ({@code X}).
     *
     * @throws IllegalArgumentException when {@code X} is malformed, off the curve, or
     *                                  {@code X - w0·M} is the identity
     */
    public PakeSecret agree(String clientShare) {
        return agree(PakeSuite.decode(clientShare, "the client's share"));
    }

    PakeSecret agree(ECPoint shareP) {
        ECPoint t = PakeSuite.nonIdentity(shareP.subtract(verifier.w0m()), "the client's share less w0·M");
        ECPoint z = PakeSuite.nonIdentity(t.multiply(y), "Z");
        prepare();
        return new PakeSecret(shareP, shareV, z, v, PakeSuite.scalarBytes(verifier.w0()));
    }

    @Override
    public String toString() {
        return "PakeServer[hidden]";
    }
}
