package dev.tunnel.server;

import dev.tunnel.server.config.ServerConfig;
import java.util.HashMap;
import java.util.Map;

/**
 * Who may log in: clients with the shared {@code auth.token}, and each {@code [[users]]} entry
 * with its own token and port rules. A client sending a {@code user} that is not listed logs
 * in with the shared token, and the name only namespaces its proxies (as in frp). With users
 * listed and {@code auth.token} empty, only listed users may log in. Immutable.
 */
final class Credentials {
    private final String sharedToken;
    private final PortRegistry.PortPolicy serverPolicy;
    private final int maxPortsPerClient;
    private final Map<String, Account> users = new HashMap<>();

    /**
     * One account a client logs in to.
     *
     * @param user  "" for the shared token, else the user name
     * @param token the secret its proofs are keyed with; never logged
     * @param quota the port rules; null = a fresh per-client quota with the server's rules
     */
    record Account(String user, String token, PortQuota quota) {
        @Override
        public String toString() {
            return user.isEmpty() ? "shared token" : "user " + user; // never the token
        }
    }

    Credentials(ServerConfig config) {
        this.serverPolicy = new AllowedPorts(config.allowPorts);
        this.maxPortsPerClient = config.maxPortsPerClient;
        this.sharedToken = config.auth.token.isEmpty() && !config.users.isEmpty() ? null : config.auth.token;
        for (ServerConfig.User u : config.users) {
            PortRegistry.PortPolicy policy = u.allowPorts.isEmpty() ? serverPolicy : new AllowedPorts(u.allowPorts);
            int max = u.maxPortsPerClient < 0 ? config.maxPortsPerClient : u.maxPortsPerClient;
            users.put(u.name, new Account(u.name, u.token, new PortQuota("user " + u.name, policy, max)));
        }
    }

    /** The account {@code user} logs in to, or null when there is none it could log in to. */
    Account find(String user) {
        Account listed = users.get(user);
        if (listed != null) {
            return listed;
        }
        return sharedToken == null ? null : new Account(user, sharedToken, null);
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
        return sharedToken != null && sharedToken.isEmpty();
    }
}
