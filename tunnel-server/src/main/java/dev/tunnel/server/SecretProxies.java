package dev.tunnel.server;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The secret proxies ({@code stcp}, {@code sudp}) of every session, by {@code user.name} as
 * frp names them (just {@code name} for a client without a user): what visitors ask for. No
 * public port is opened for them. Also holds the per-address backoff for visitors whose proof
 * fails, apart from the login one so a visitor guessing keys and a client's logins do not count
 * against each other.
 *
 * <p>Threading: sessions on every loop register and look up; the map is concurrent.
 */
final class SecretProxies {
    /**
     * One registered secret proxy.
     *
     * @param allowUsers users whose visitors may connect; empty = only the provider's own user,
     *                   {@code *} = everyone (frp's rule)
     */
    record Provider(ClientSession session, int proxyId, String type, String user, String name, String secretKey,
                    List<String> allowUsers) {
        String qualified() {
            return qualify(user, name);
        }

        boolean allows(String visitorUser) {
            if (allowUsers.isEmpty()) {
                return visitorUser.equals(user);
            }
            return allowUsers.contains("*") || allowUsers.contains(visitorUser);
        }
    }

    private final Map<String, Provider> providers = new ConcurrentHashMap<>();
    private final LoginThrottle throttle;

    SecretProxies(LoginThrottle throttle) {
        this.throttle = throttle;
    }

    static String qualify(String user, String name) {
        return user.isEmpty() ? name : user + "." + name;
    }

    /** Registers {@code provider}; returns why not (its name is taken), or null. */
    String register(Provider provider) {
        Provider old = providers.putIfAbsent(provider.qualified(), provider);
        return old == null ? null : "secret proxy [" + provider.qualified() + "] is already registered by another client";
    }

    void unregister(Provider provider) {
        providers.remove(provider.qualified(), provider);
    }

    Provider find(String user, String name) {
        return providers.get(qualify(user, name));
    }

    LoginThrottle throttle() {
        return throttle;
    }
}
