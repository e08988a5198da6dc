package dev.tunnel.web;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.URI;
import java.util.Locale;

/**
 * Keeps a web page on another site from using the visitor's browser against the web server
 * (cross-site request forgery, DNS rebinding). A browser that holds the credentials (basic auth
 * is cached per origin) would otherwise send them with a form posted from anywhere, and frp's
 * {@code GET /api/reload} can be triggered by an {@code <img>} tag.
 *
 * <p>A state-changing request is refused when the browser says it comes from another site
 * ({@code Sec-Fetch-Site} other than {@code same-origin} or {@code none}) or carries an
 * {@code Origin} whose host and port differ from {@code Host}. Clients that are not browsers
 * (curl, {@code tunnel-client reload}) send neither header and pass.
 *
 * <p>Without credentials configured, every request must also name the server by an IP address
 * or {@code localhost} in {@code Host}: a page whose domain is rebound to 127.0.0.1 names its
 * own domain, so it cannot read the API from the visitor's machine.
 */
final class CrossSiteGuard {

    private CrossSiteGuard() {
    }

    /** Why a state-changing request is refused, or null when it may go on. */
    static String refuseChange(HttpHeaders headers) {
        String site = headers.get("Sec-Fetch-Site");
        if (site != null && !site.equalsIgnoreCase("same-origin") && !site.equalsIgnoreCase("none")) {
            return "cross-site request refused (Sec-Fetch-Site: " + site + ")";
        }
        String origin = headers.get(HttpHeaderNames.ORIGIN);
        if (origin != null) {
            String host = headers.get(HttpHeaderNames.HOST);
            String originHost = authority(origin);
            if (host == null || originHost == null || !originHost.equalsIgnoreCase(host)) {
                return "cross-site request refused (Origin " + origin + " is not this server)";
            }
        }
        return null;
    }

    /** Why a request to a server without credentials is refused (its Host is a name), or null. */
    static String refuseHost(HttpHeaders headers) {
        String host = headers.get(HttpHeaderNames.HOST);
        if (host == null) {
            return null; // HTTP/1.0 clients; browsers always send Host
        }
        String name = hostOnly(host).toLowerCase(Locale.ROOT);
        if (name.equals("localhost") || name.startsWith("[") || name.matches("[0-9.]+")) {
            return null;
        }
        return "Host " + host + " refused: without webServer.user/password, use an IP address or localhost";
    }

    private static String authority(String origin) {
        try {
            URI uri = new URI(origin);
            if (uri.getHost() == null) {
                return null;
            }
            return uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
        } catch (Exception e) {
            return null;
        }
    }

    private static String hostOnly(String host) {
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end < 0 ? host : host.substring(0, end + 1);
        }
        int colon = host.lastIndexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }
}
