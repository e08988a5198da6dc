package dev.tunnel.config;

import java.util.ArrayList;
import java.util.List;

/**
 * frp's {@code auth.tokenSource}: where the token comes from instead of {@code auth.token}.
 * {@code type = "file"} reads {@code file.path} (relative to the working directory, as frp),
 * surrounding whitespace trimmed as frp trims it. {@code type = "exec"} binds (frp's
 * {@code exec.command}, {@code exec.args}, {@code exec.env}) only to be refused: running a
 * program named in a config that the client's admin API can rewrite ({@code PUT /api/config})
 * would let whoever reaches that API run code as the service; frp itself runs it only when
 * started with {@code --allow-unsafe=TokenSourceExec}, a switch tunnel does not have.
 */
public class TokenSourceConfig {
    /** "file" ("exec" is refused, see the class comment). */
    public String type = "";
    public FileSource file = new FileSource();
    public ExecSource exec = new ExecSource();

    /** {@code tokenSource.file}. */
    public static class FileSource {
        public String path = "";
    }

    /** {@code tokenSource.exec}: accepted in the file so that the refusal can say why. */
    public static class ExecSource {
        public String command = "";
        public List<String> args = new ArrayList<>();
        public List<EnvVar> env = new ArrayList<>();
    }

    /** {@code tokenSource.exec.env} entry. */
    public static class EnvVar {
        public String name = "";
        public String value = "";
    }

    /**
     * The token this source gives, or null after adding the errors that prevent it.
     *
     * @param prefix the table's key ("auth")
     * @param token  {@code auth.token}, which must then be empty (as frp)
     */
    String resolve(String prefix, String token, String tokenFile, ValueChecks checks) {
        String key = prefix + ".tokenSource";
        boolean alone = checks.check(token == null || token.isEmpty(), key, "set together with " + prefix
                + ".token (expected: one of them)")
                & checks.check(tokenFile == null, key, "set together with " + prefix + ".tokenFile (expected: one of them)");
        if ("exec".equals(type)) {
            checks.check(false, key + ".type", "\"exec\" is not supported: running a program named in the config is a"
                    + " code-execution risk (the client's admin API can rewrite the config; frp runs it only with"
                    + " --allow-unsafe=TokenSourceExec); use type = \"file\"");
            return null;
        }
        if (!checks.check("file".equals(type), key + ".type", "\"" + type + "\" (expected: \"file\")")
                || !checks.notBlank(key + ".file.path", file.path) || !alone) {
            return null;
        }
        String secret = checks.secret(prefix + ".token", "", key + ".file.path", file.path);
        if (secret == null) {
            return null;
        }
        String trimmed = secret.strip();
        return checks.check(!trimmed.isEmpty(), key + ".file.path", "file \"" + file.path + "\" holds only whitespace")
                ? trimmed : null;
    }
}
