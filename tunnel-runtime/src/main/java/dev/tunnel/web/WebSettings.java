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
