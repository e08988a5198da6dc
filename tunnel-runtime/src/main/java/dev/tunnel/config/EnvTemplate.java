package dev.tunnel.config;

import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * frp's environment templating in string values: {@code "{{ .Envs.NAME }}"} becomes the value of
 * the environment variable NAME. An unset variable is an error (frp would silently use an empty
 * string, which hides a missing token). Other frp template functions are reported as unsupported.
 */
public final class EnvTemplate {

    private static final Pattern TEMPLATE = Pattern.compile("\\{\\{(.*?)}}");
    private static final Pattern ENV = Pattern.compile("\\s*\\.Envs\\.([A-Za-z_][A-Za-z0-9_]*)\\s*");

    private final Function<String, String> env;

    /** @param env looks up an environment variable, null when unset (e.g. {@code System::getenv}) */
    public EnvTemplate(Function<String, String> env) {
        this.env = env;
    }

    /** Returns {@code value} with every template replaced; adds an error for each one it cannot expand. */
    public String expand(String value, String keyPath, ConfigErrors errors) {
        if (!value.contains("{{")) {
            return value;
        }
        Matcher m = TEMPLATE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            Matcher envName = ENV.matcher(m.group(1));
            String replacement = m.group();
            if (!envName.matches()) {
                errors.add(keyPath, "unsupported template \"" + m.group()
                        + "\" (only {{ .Envs.NAME }} is supported)");
            } else {
                String name = envName.group(1);
                String v = env.apply(name);
                if (v == null) {
                    errors.add(keyPath, "environment variable " + name + " is not set (used as \"" + m.group() + "\")");
                } else {
                    replacement = v;
                }
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }
}
