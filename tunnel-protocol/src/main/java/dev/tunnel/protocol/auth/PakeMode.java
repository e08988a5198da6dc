package dev.tunnel.protocol.auth;

import java.util.Locale;

/** {@code auth.pake}, on either side: whether the PAKE login is used (docs/security.md). */
public enum PakeMode {
    /** Never: the token login only (a server holding only a verifier cannot use it). */
    OFF,
    /** When the peer has it; the token login with a peer that does not. */
    PREFERRED,
    /** Always: a peer without it is refused. */
    REQUIRED;

    /** The config value ({@code "off"}, {@code "preferred"}, {@code "required"}); validated before. */
    public static PakeMode of(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }

    /** As written in configs. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
