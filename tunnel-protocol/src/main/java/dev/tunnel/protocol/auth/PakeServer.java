package dev.tunnel.protocol.auth;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.math.BigInteger;
import java.util.concurrent.Executor;
import org.bouncycastle.math.ec.ECPoint;

/**
 * The server's (the verifier's) half of one SPAKE2+ login (RFC 9383, {@link PakeSuite}), holding
 * only the account's {@link TokenVerifier}: {@link #start} takes a single-use {@code y} with
 * {@code y·P}, and usually {@code V = y·L} too (computed ahead, {@link VerifierEphemerals}), and
 * computes {@code Y = y·P + w0·N}, one point addition; {@link #prepare} offers to a helper thread
 * {@code Z} when the hello carried the client's {@code X}, with {@code V} when it was not computed
 * ahead (a fixed-base multiplication with the verifier's comb table of {@code L}), so that they are
 * computed while the challenge travels and the client computes its own values, on a core the
 * client's thread is not waiting for; {@link #agree} takes the client's {@code X} and computes
 * {@code Z = y·(X - w0·M)}, one multiplication, and {@link #agreed} the secret for the hello's
 * {@code X}; both compute what no helper has started ({@link Offered}).
 *
 * <p>Threading: the methods may run on any thread, one after the other (handed on through a
 * future or on one event loop); the instance is used once. The helper writes nothing of it: it
 * computes from the scalar, the verifier and the client's point, and its result comes back
 * through {@link Offered}.
 */
public final class PakeServer {
    private final TokenVerifier verifier;
    private final BigInteger y;
    private final ECPoint shareV;
    private final String serverShare;
    /** {@code V = y·L} computed ahead with {@code y}, or null. */
    private final ECPoint aheadV;
    private boolean preparing;
    /** {@code V} and, for the hello's {@code X}, {@code Z}; null unless {@link #prepare} offered them. */
    private Offered<ECPoint[]> prepared;
    /** The hello's {@code X}, or null. */
    private ECPoint earlyShare;

    private PakeServer(TokenVerifier verifier, Ephemeral ephemeral) {
        this.verifier = verifier;
        this.y = ephemeral.scalar;
        this.aheadV = ephemeral.timesL(verifier);
        this.shareV = ephemeral.point.add(verifier.w0n()).normalize();
        this.serverShare = PakeSuite.encode(shareV);
    }

    /**
     * This login's {@code Y} for {@code verifier} from {@code ephemeral}, which must never have
     * been used; its {@code V} is used when it was computed for this verifier's {@code L}.
     */
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

    /** Computes {@code V = y·L} ahead of {@link #agree} (a fixed-base multiplication, {@link TokenVerifier}) on this thread. */
    public void prepare() {
        prepare(Runnable::run, "");
    }

    /**
     * Offers {@code Z} for {@code earlyClientShare} ({@code X} from the hello, then {@link #agreed}
     * is the secret) unless it is empty, and {@code V} unless it was computed ahead, to
     * {@code helper}; once.
     *
     * @throws IllegalArgumentException when {@code X} is malformed, off the curve, or
     *                                  {@code X - w0·M} is the identity
     */
    public void prepare(Executor helper, String earlyClientShare) {
        if (preparing) {
            throw new IllegalStateException("prepared already");
        }
        preparing = true;
        ECPoint t = null;
        if (!earlyClientShare.isEmpty()) {
            earlyShare = PakeSuite.decode(earlyClientShare, "the client's share");
            t = lessW0M(earlyShare);
        }
        if (t == null && aheadV != null) {
            return; // nothing to compute before the share arrives
        }
        ECPoint early = t;
        prepared = Offered.offer(() -> new ECPoint[] {v(), early == null ? null : z(early)}, helper);
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
        if (earlyShare != null) {
            throw new IllegalStateException("the hello's X was agreed on");
        }
        ECPoint z = z(lessW0M(shareP));
        ECPoint v = prepared == null ? v() : prepared.get()[0];
        return new PakeSecret(shareP, shareV, z, v, PakeSuite.scalarBytes(verifier.w0()));
    }

    /**
     * The secret agreed with the {@code X} the hello carried ({@link #prepare(Executor, String)}).
     *
     * @throws IllegalArgumentException when {@code Z} is the identity
     */
    public PakeSecret agreed() {
        if (earlyShare == null) {
            throw new IllegalStateException("no X from the hello");
        }
        ECPoint[] vz = prepared.get();
        return new PakeSecret(earlyShare, shareV, vz[1], vz[0], PakeSuite.scalarBytes(verifier.w0()));
    }

    /** Whether the hello's {@code X} was taken ({@link #agreed} then gives the secret). */
    public boolean hasEarlyShare() {
        return earlyShare != null;
    }

    /** Whether {@code V} was computed ahead with the scalar ({@link VerifierEphemerals}), for tests. */
    boolean vComputedAhead() {
        return aheadV != null;
    }

    /** Whether a helper thread computed what {@link #prepare} offered, for tests (once the secret was agreed). */
    boolean preparedByHelper() {
        return prepared != null && prepared.byHelper();
    }

    private ECPoint lessW0M(ECPoint shareP) {
        return PakeSuite.nonIdentity(shareP.subtract(verifier.w0m()), "the client's share less w0·M");
    }

    private ECPoint z(ECPoint t) {
        return PakeSuite.nonIdentity(t.multiply(y), "Z");
    }

    private ECPoint v() {
        if (aheadV != null) {
            return aheadV;
        }
        return PakeSuite.nonIdentity(verifier.timesL(y), "V");
    }

    @Override
    public String toString() {
        return "PakeServer[hidden]";
    }
}
