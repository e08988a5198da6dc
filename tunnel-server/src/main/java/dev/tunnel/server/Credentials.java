package dev.tunnel.server;

import dev.tunnel.protocol.auth.PakeMode;
import dev.tunnel.protocol.auth.PakeWorker;
import dev.tunnel.protocol.auth.TokenVerifier;
import dev.tunnel.protocol.auth.VerifierEphemerals;
import dev.tunnel.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who may log in: clients with the shared {@code auth.token} (or {@code auth.tokenVerifier}), and
 * each {@code [[users]]} entry with its own token (or verifier) and port rules. A client sending a
 * {@code user} that is not listed logs in with the shared token, and the name only namespaces its
 * proxies (as in frp). With users listed and neither {@code auth.token} nor
 * {@code auth.tokenVerifier} set, only listed users may log in.
 *
 * <p>Unless {@code auth.pake = "off"}, every account has a {@link TokenVerifier} for the PAKE
 * login: the configured one, or one made from the token at start with a random salt (a few ms per
 * account), and the server's scalars for each verifier, with its decoys' base among them, are
 * computed ahead ({@link VerifierEphemerals}). Immutable but for those pools, which are thread-safe.
 */
final class Credentials {
    private final Account shared;
    private final PortRegistry.PortPolicy serverPolicy;
    private final int maxPortsPerClient;
    private final Map<String, Account> users = new HashMap<>();
    /** The verifier decoys are made of, and the key their salts are derived with (per process). */
    private final TokenVerifier decoy;
    private final byte[] decoyKey = new byte[32];
    /** The server's scalars computed ahead for each verifier; null with {@code auth.pake = "off"}. */
    private final VerifierEphemerals ephemerals;

    /**
     * One account a client logs in to.
     *
     * @param user     "" for the shared token, else the user name
     * @param token    the secret token-login proofs are keyed with; null when only a verifier is configured; never logged
     * @param verifier what the PAKE login runs against; null with {@code auth.pake = "off"}; never logged
     * @param quota    the port rules; null = a fresh per-client quota with the server's rules
     */
    record Account(String user, String token, TokenVerifier verifier, PortQuota quota) {
        @Override
        public String toString() {
            return user.isEmpty() ? "shared token" : "user " + user; // never the token
        }
    }

    Credentials(ServerConfig config) {
        this(config, PakeWorker.shared());
    }

    /** @param worker where the server's scalars for the PAKE login are computed ahead */
    Credentials(ServerConfig config, PakeWorker worker) {
        this.serverPolicy = new AllowedPorts(config.allowPorts);
        this.maxPortsPerClient = config.maxPortsPerClient;
        boolean pake = PakeMode.of(config.auth.pake) != PakeMode.OFF;
        ServerConfig.Auth auth = config.auth;
        if (auth.tokenVerifier != null) {
            this.shared = new Account("", null, TokenVerifier.parse(auth.tokenVerifier), null);
        } else if (!auth.token.isEmpty() || config.users.isEmpty()) {
            this.shared = new Account("", auth.token, pake ? TokenVerifier.create(auth.token) : null, null);
        } else {
            this.shared = null;
        }
        for (ServerConfig.User u : config.users) {
            PortRegistry.PortPolicy policy = u.allowPorts.isEmpty() ? serverPolicy : new AllowedPorts(u.allowPorts);
            int max = u.maxPortsPerClient < 0 ? config.maxPortsPerClient : u.maxPortsPerClient;
            TokenVerifier verifier = u.tokenVerifier != null ? TokenVerifier.parse(u.tokenVerifier)
                    : pake ? TokenVerifier.create(u.token) : null;
            String token = u.tokenVerifier != null ? null : u.token;
            users.put(u.name, new Account(u.name, token, verifier, new PortQuota("user " + u.name, policy, max)));
        }
        SecureRandom random = new SecureRandom();
        random.nextBytes(decoyKey);
        this.decoy = pake ? TokenVerifier.unmatchable() : null;
        this.ephemerals = pake ? worker.verifierEphemerals(verifiers()) : null;
    }

    /** Every verifier a PAKE login runs against: the accounts' and the decoys' base. */
    private List<TokenVerifier> verifiers() {
        List<TokenVerifier> all = new ArrayList<>();
        if (shared != null && shared.verifier() != null) {
            all.add(shared.verifier());
        }
        for (Account a : users.values()) {
            all.add(a.verifier());
        }
        all.add(decoy);
        return all;
    }

    /** The server's scalars computed ahead for each verifier and the decoys (null with {@code auth.pake = "off"}). */
    VerifierEphemerals ephemerals() {
        return ephemerals;
    }

    /** The account {@code user} logs in to, or null when there is none it could log in to. */
    Account find(String user) {
        Account listed = users.get(user);
        if (listed != null) {
            return listed;
        }
        return shared == null ? null : new Account(user, shared.token(), shared.verifier(), null);
    }

    /**
     * What the PAKE login runs against for a user with no account: a verifier no token matches,
     * with a salt that is the same for the same name for the life of this process (so asking twice
     * tells nothing), derived from a key of this process.
     */
    TokenVerifier decoy(String user) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(decoyKey, "HmacSHA256"));
            return decoy.decoy(mac.doFinal(user.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** Whether {@code user} is a {@code [[users]]} entry: a name bound to its own token. */
    boolean listed(String user) {
        return users.containsKey(user);
    }

    /** The port rules for a new session of {@code account}. */
    PortQuota quotaFor(Account account) {
        return account.quota() != null ? account.quota() : new PortQuota("client", serverPolicy, maxPortsPerClient);
    }

    boolean sharedTokenEmpty() {
        return shared != null && "".equals(shared.token());
    }
}
