package dev.tunnel.config;

import java.util.List;

/**
 * The {@code [auth]} keys frps.toml and frpc.toml share: the method and the shared token, which
 * must be the same on both sides (docs/security.md). Each side's table extends this and says
 * what an empty token means there.
 */
public class TokenAuthConfig {
    /** Only "token" for now. */
    public String method = "token";
    /** The shared secret. */
    public String token = "";
    /** Tunnel extension: file holding the token (trailing newline ignored); instead of token. */
    public String tokenFile;
    /**
     * Tunnel extension: the PAKE login (SPAKE2+, docs/security.md), in which nothing on the wire
     * lets a token guess be checked offline. {@code "preferred"}: used when the peer has it, the
     * token login otherwise; {@code "required"}: a peer without it is refused; {@code "off"}.
     */
    public String pake = "preferred";
    /** frp's {@code tokenSource}: the token read from a file instead of {@code token}; null = unset. */
    public TokenSourceConfig tokenSource;

    /**
     * Checks the table; {@code prefix} is its key ("auth"). A token read from {@code tokenFile}
     * completes it: the rest of the program only reads {@code token}.
     */
    public void validate(String prefix, ValueChecks checks) {
        checks.oneOf(prefix + ".method", method, List.of("token"), List.of("oidc"));
        checks.oneOf(prefix + ".pake", pake, List.of("off", "preferred", "required"), List.of());
        String secret = tokenSource == null ? checks.secret(prefix + ".token", token, prefix + ".tokenFile", tokenFile)
                : tokenSource.resolve(prefix, token, tokenFile, checks);
        if (secret != null) {
            token = secret;
        }
    }
}
