package dev.tunnel.protocol.auth;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.util.concurrent.Executor;
import org.bouncycastle.math.ec.ECPoint;

/**
 * The client's (the prover's) half of one SPAKE2+ login (RFC 9383, {@link PakeSuite}):
 * {@link #start} takes a single-use {@code x} with {@code x·P} (computed ahead, {@link Ephemerals});
 * {@link #early} computes {@code X = x·P + w0·M} for the hello when the client knows the salt this
 * server gave last time ({@link KnownSalts}) and its secrets are in memory (one point addition);
 * {@link #finish} takes the server's salt and {@code Y} and computes {@code X} (unless the early
 * one was for that salt), {@code Z = x·(Y - w0·N)} and {@code V = w1·(Y - w0·N)}: two
 * variable-base multiplications of one point ({@code V} is {@link Offered} to a helper thread, so
 * that the two can run on two cores), plus the PBKDF2 of {@code w0}, {@code w1} the first time this
 * process meets the salt ({@link ProverSecrets}). An early {@code X} for another salt is never
 * followed by a second {@code X} from the same {@code x} (the two would differ by a known
 * multiple of {@code M}, a test for token guesses): a fresh {@code x} is drawn.
 *
 * <p>Threading: {@link #start} and {@link #finish} may run on any thread, one after the other
 * (the instance is handed from one to the next through a future); the instance is used once. The
 * helper that {@link #finish} offers {@code V} to writes nothing of this instance: its one result
 * comes back through {@link Offered}; BouncyCastle builds the point's wNAF table, which both
 * multiplications use, under a lock on the point.
 */
public final class PakeClient {
    private final String token;
    private final Executor helper;
    private Ephemeral x;
    private String clientShare;
    /** The salt of the early {@code X}, or null when the hello carried none. */
    private String earlySalt;
    private ECPoint earlyShare;

    private PakeClient(String token, Ephemeral x, Executor helper) {
        this.token = token;
        this.x = x;
        this.helper = helper;
    }

    /**
     * This login's secret scalar and {@code x·P} from {@code ephemeral}, which must never have been
     * used; {@link #finish} offers {@code V} to {@code helper} ({@link PakeWorker#helper()}).
     */
    public static PakeClient start(String token, Ephemeral ephemeral, Executor helper) {
        return new PakeClient(token, ephemeral, helper);
    }

    /** {@link #start(String, Ephemeral, Executor)} computing everything on the calling thread. */
    public static PakeClient start(String token, Ephemeral ephemeral) {
        return new PakeClient(token, ephemeral, Runnable::run);
    }

    /** Picks this login's secret scalar. */
    public static PakeClient start(String token) {
        return start(token, Ephemeral.fresh());
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
        ECPoint y = PakeSuite.decode(serverShare, "the server's share");
        if (sentEarly(salt)) {
            return finish(w, y, earlyShare);
        }
        if (earlySalt != null) {
            x = Ephemeral.fresh(); // never two shares from one x
        }
        return finish(w, y, x.point.add(w.w0m).normalize());
    }

    /**
     * {@code X} for the hello to {@code server} (its address) as {@code user}: {@link #early(String)}
     * with the salt that server gave last time ({@link KnownSalts}); then {@link #earlySalt()}.
     */
    public String early(String server, String user) {
        return early(KnownSalts.get(server, user, token));
    }

    /** The salt the early {@code X} is for, "" when there is none. */
    public String earlySalt() {
        return earlySalt == null ? "" : earlySalt;
    }

    /** Remembers the salt {@code server} gave {@code user}, for the next login's early {@code X}. */
    public void remember(String server, String user, String salt) {
        KnownSalts.put(server, user, token, salt);
    }

    /**
     * {@code X} for the hello when {@code salt} is the one this server gave last time and its
     * secrets are in memory (a point addition), else "" (the share then follows the challenge).
     */
    public String early(String salt) {
        if (salt == null || !ProverSecrets.known(token, salt)) {
            return "";
        }
        earlySalt = salt;
        earlyShare = x.point.add(ProverSecrets.of(token, salt).w0m).normalize();
        return PakeSuite.encode(earlyShare);
    }

    /**
     * Whether the hello carried the {@code X} this login uses with {@code salt}: then the server
     * took it, and no {@code PAKE_SHARE} follows.
     */
    public boolean sentEarly(String salt) {
        return earlySalt != null && earlySalt.equals(salt);
    }

    PakeSecret finish(ProverSecrets w, ECPoint y) {
        return finish(w, y, x.point.add(w.w0m).normalize());
    }

    private PakeSecret finish(ProverSecrets w, ECPoint y, ECPoint shareP) {
        ECPoint t = PakeSuite.nonIdentity(y.subtract(w.w0n), "the server's share less w0·N");
        Offered<ECPoint> v = Offered.offer(() -> PakeSuite.nonIdentity(t.multiply(w.w1), "V"), helper);
        ECPoint z = PakeSuite.nonIdentity(t.multiply(x.scalar), "Z");
        clientShare = PakeSuite.encode(shareP);
        return new PakeSecret(shareP, y, z, v.get(), w.w0Bytes);
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
