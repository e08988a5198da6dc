package dev.tunnel.server;

import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.auth.PakeKeys;
import dev.tunnel.protocol.auth.PakeMode;
import dev.tunnel.protocol.auth.PakeSecret;

/**
 * Checks a {@link Login} against the challenge this server sent on that connection
 * (docs/security.md). The proof must be keyed with the account's token and bound to the
 * server's nonce, the client's nonce and this server's own certificate ({@code ownBinding}).
 * A connection that reached the server without TLS may also be bound to nothing: that is a
 * plaintext client (whose login is still fresh, but not protected from a man in the middle), or
 * a TLS terminator in front, whose client binds to the certificate it saw, which must then be
 * ours. The PAKE login ({@link #verifyPake}) is checked the same way with the proof its secret
 * gives; with {@code auth.pake = "required"}, or for an account held only as a verifier, a token
 * login is refused. Stateless and thread-safe.
 */
final class LoginAuthenticator {

    /**
     * The decision on one login. On success {@code account} is set and {@code serverProof} is the
     * server's answer; on refusal {@code code}, {@code error} (for the client) and
     * {@code logReason} (for the server log) say why. None of them contain a token.
     */
    record Verdict(Credentials.Account account, int code, String error, String logReason, String serverProof,
                   String proofKey) {
        boolean ok() {
            return account != null;
        }

        static Verdict refused(int code, String error, String logReason) {
            return new Verdict(null, code, error, logReason, "", "");
        }

        @Override
        public String toString() {
            return ok() ? "Verdict[" + account + "]" : "Verdict[" + code + ", " + logReason + "]"; // never the key
        }
    }

    private final Credentials credentials;
    private final ChannelBinding ownBinding;
    private final PakeMode pake;

    LoginAuthenticator(Credentials credentials, ChannelBinding ownBinding) {
        this(credentials, ownBinding, PakeMode.PREFERRED);
    }

    /** @param pake {@code auth.pake} */
    LoginAuthenticator(Credentials credentials, ChannelBinding ownBinding, PakeMode pake) {
        this.credentials = credentials;
        this.ownBinding = ownBinding;
        this.pake = pake;
    }

    /** Whether this server answers a PAKE hello. */
    boolean offersPake() {
        return pake != PakeMode.OFF;
    }

    Credentials credentials() {
        return credentials;
    }

    ChannelBinding ownBinding() {
        return ownBinding;
    }

    Verdict verify(Login login, String serverNonce, boolean connectionHasTls) {
        if (!LoginProof.wellFormedNonce(login.nonce())) {
            return Verdict.refused(LoginResult.REFUSED, "malformed login: bad client nonce", "malformed client nonce");
        }
        Credentials.Account account = credentials.find(login.user());
        String who = login.user().isEmpty() ? "" : " for user \"" + login.user() + "\"";
        if (account == null) {
            // Same answer as a wrong token, so user names cannot be probed.
            return Verdict.refused(LoginResult.AUTH_FAILED, authFailed(login.user()),
                    "no such user and no shared auth.token" + who);
        }
        if (pake == PakeMode.REQUIRED || account.token() == null) {
            String why = pake == PakeMode.REQUIRED ? "this server requires the PAKE login (auth.pake = \"required\")"
                    : "this server holds only a token verifier for this account (tokenVerifier), so only the PAKE"
                    + " login can prove the token";
            return Verdict.refused(LoginResult.VERSION_MISMATCH, why + "; this client logged in with the token login:"
                    + " upgrade it, or set its auth.pake to \"preferred\" or \"required\"",
                    "token login refused" + who + ": " + why);
        }
        ChannelBinding binding = null;
        if (LoginProof.verifyClient(account.token(), login.user(), serverNonce, login.nonce(), ownBinding, login.proof())) {
            binding = ownBinding;
        } else if (!connectionHasTls && LoginProof.verifyClient(account.token(), login.user(), serverNonce,
                login.nonce(), ChannelBinding.none(), login.proof())) {
            binding = ChannelBinding.none();
        }
        if (binding == null) {
            return refusal(login, serverNonce, account, who);
        }
        String proof = LoginProof.server(account.token(), login.user(), serverNonce, login.nonce(), binding);
        return new Verdict(account, LoginResult.OK, "", "", proof, account.token());
    }

    /**
     * Checks the {@link Login} that ends a PAKE login: its proof must come from the secret agreed
     * with {@code account} ({@code null}: the hello named a user with no account, refused as a
     * wrong token is) over the user of the hello, both nonces and this server's certificate (or
     * none on a connection without TLS). On success the session's further connections are proven
     * with the session key, not the token.
     */
    Verdict verifyPake(Login login, String serverNonce, boolean connectionHasTls, String helloUser,
                       Credentials.Account account, PakeSecret secret) {
        if (!LoginProof.wellFormedNonce(login.nonce())) {
            return Verdict.refused(LoginResult.REFUSED, "malformed login: bad client nonce", "malformed client nonce");
        }
        String who = login.user().isEmpty() ? "" : " for user \"" + login.user() + "\"";
        if (!login.user().equals(helloUser)) {
            return Verdict.refused(LoginResult.REFUSED, "malformed login: its user differs from the PAKE hello's",
                    "login user differs from the PAKE hello's" + who);
        }
        if (account == null) {
            return Verdict.refused(LoginResult.AUTH_FAILED, authFailed(login.user()),
                    "no such user and no shared auth.token" + who + " (PAKE login)");
        }
        PakeKeys keys = secret.keys(login.user(), serverNonce, login.nonce(), ownBinding);
        if (!keys.clientProven(login.proof()) && !connectionHasTls) {
            keys = secret.keys(login.user(), serverNonce, login.nonce(), ChannelBinding.none());
        }
        if (keys.clientProven(login.proof())) {
            return new Verdict(account, LoginResult.OK, "", "", keys.serverProof(), keys.sessionKey());
        }
        ChannelBinding seen = seenBinding(login);
        if (!seen.isNone() && !seen.matches(ownBinding)
                && secret.keys(login.user(), serverNonce, login.nonce(), seen).clientProven(login.proof())) {
            return certificateMismatch(seen);
        }
        return Verdict.refused(LoginResult.AUTH_FAILED, authFailed(login.user()), "wrong token" + who + " (PAKE login)");
    }

    /** Tells a certificate mismatch (right token, someone else's TLS in between) from a wrong token. */
    private Verdict refusal(Login login, String serverNonce, Credentials.Account account, String who) {
        ChannelBinding seen = seenBinding(login);
        if (!seen.isNone() && !seen.matches(ownBinding) && LoginProof.verifyClient(account.token(), login.user(),
                serverNonce, login.nonce(), seen, login.proof())) {
            return certificateMismatch(seen);
        }
        return Verdict.refused(LoginResult.AUTH_FAILED, authFailed(login.user()), "wrong token" + who);
    }

    /** The certificate the client says it saw (diagnosis only), or none. */
    private static ChannelBinding seenBinding(Login login) {
        try {
            return ChannelBinding.parse(login.serverCertificate());
        } catch (IllegalArgumentException e) {
            return ChannelBinding.none();
        }
    }

    private Verdict certificateMismatch(ChannelBinding seen) {
        String error = "TLS certificate mismatch: the client saw server certificate " + seen.fingerprint()
                + " but this server's is " + ownBinding.fingerprint() + "; something between them terminates TLS"
                + " with another certificate (a man in the middle, or a TLS proxy that needs this server's certificate)";
        return Verdict.refused(LoginResult.AUTH_FAILED, error, error);
    }

    private static String authFailed(String user) {
        return user.isEmpty()
                ? "authorization failed: the server rejected auth.token"
                : "authorization failed: the server rejected user \"" + user + "\" with this auth.token";
    }
}
