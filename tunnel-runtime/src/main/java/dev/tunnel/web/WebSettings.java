package dev.tunnel.web;

/**
 * The {@code [webServer]} table of either side.
 *
 * @param addr     address to listen on (frp's default is 127.0.0.1: loopback only)
 * @param port     port to listen on; 0 = no web server
 * @param user     user for HTTP basic auth; with {@code password} empty too, no auth
 * @param password password for HTTP basic auth
 * @param certFile PEM certificate for HTTPS, or null for plain HTTP; needs {@code keyFile}
 * @param keyFile  PEM private key of {@code certFile}
 */
public record WebSettings(String addr, int port, String user, String password, String certFile, String keyFile) {

    /**
     * Why this server may not listen where it would, or null when it may: beyond loopback (a
     * wildcard address included) both the user and the password must be set, since one empty
     * credential is one anybody can guess.
     *
     * @param prefix   how the keys are named ("webServer")
     * @param loopback whether the listening address is a loopback one
     */
    public String refusal(String prefix, boolean loopback) {
        if (loopback) {
            return null;
        }
        String empty = isEmpty(user) && isEmpty(password) ? ""
                : isEmpty(user) ? prefix + ".user is empty, and "
                : isEmpty(password) ? prefix + ".password is empty, and " : null;
        return empty == null ? null : "\"" + addr + "\" is not a loopback address, so " + prefix + ".user and " + prefix
                + ".password must be set (" + empty + "anyone who reaches it could use it)";
    }

    /** Whether requests must carry credentials. */
    public boolean authRequired() {
        return !isEmpty(user) || !isEmpty(password);
    }

    /** Whether the server speaks HTTPS. */
    public boolean tls() {
        return !isEmpty(certFile);
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }
}
