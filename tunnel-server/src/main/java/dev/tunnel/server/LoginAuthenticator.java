package dev.tunnel.server;

import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.LoginProof;

/**
 * Checks a {@link Login} against the challenge this server sent on that connection
 * (docs/security.md). The proof must be keyed with the account's token and bound to the
 * server's nonce, the client's nonce and this server's own certificate ({@code ownBinding}).
 * A connection that reached the server without TLS may also be bound to nothing: that is a
 * plaintext client (whose login is still fresh, but not protected from a man in the middle), or
 * a TLS terminator in front, whose client binds to the certificate it saw, which must then be
 * ours. Stateless and thread-safe.
 */
final class LoginAuthenticator {

    /**
     * The decision on one login. On success {@code account} is set and {@code serverProof} is the
     * server's answer; on refusal {@code code}, {@code error} (for the client) and
     * {@code logReason} (for the server log) say why. None of them contain a token.
     */
    record Verdict(Credentials.Account account, int code, String error, String logReason, String serverProof) {
        boolean ok() {
            return account != null;
        }

        static Verdict refused(int code, String error, String logReason) {
            return new Verdict(null, code, error, logReason, "");
        }
    }

    private final Credentials credentials;
    private final ChannelBinding ownBinding;

    LoginAuthenticator(Credentials credentials, ChannelBinding ownBinding) {
        this.credentials = credentials;
        this.ownBinding = ownBinding;
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
        return new Verdict(account, LoginResult.OK, "", "", proof);
    }

    /** Tells a certificate mismatch (right token, someone else's TLS in between) from a wrong token. */
    private Verdict refusal(Login login, String serverNonce, Credentials.Account account, String who) {
        ChannelBinding seen;
        try {
            seen = ChannelBinding.parse(login.serverCertificate());
        } catch (IllegalArgumentException e) {
            seen = ChannelBinding.none();
        }
        if (!seen.isNone() && !seen.matches(ownBinding) && LoginProof.verifyClient(account.token(), login.user(),
                serverNonce, login.nonce(), seen, login.proof())) {
            String error = "TLS certificate mismatch: the client saw server certificate " + seen.fingerprint()
                    + " but this server's is " + ownBinding.fingerprint() + "; something between them terminates TLS"
                    + " with another certificate (a man in the middle, or a TLS proxy that needs this server's certificate)";
            return Verdict.refused(LoginResult.AUTH_FAILED, error, error);
        }
        return Verdict.refused(LoginResult.AUTH_FAILED, authFailed(login.user()), "wrong token" + who);
    }

    private static String authFailed(String user) {
        return user.isEmpty()
                ? "authorization failed: the server rejected auth.token"
                : "authorization failed: the server rejected user \"" + user + "\" with this auth.token";
    }
}
