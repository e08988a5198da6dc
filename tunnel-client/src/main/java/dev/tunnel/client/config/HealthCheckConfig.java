package dev.tunnel.client.config;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code [proxies.healthCheck]}: the client checks the proxy's local app and withdraws the proxy
 * from the server while the app fails (frp's keys and defaults).
 */
public class HealthCheckConfig {
    /** "tcp" (a connection opens), "http" (a GET of {@link #path} answers 2xx) or "" (no check). */
    public String type = "";
    /** Seconds one check may take; 0 = 3, as frp. */
    public int timeoutSeconds = 3;
    /** Consecutive failed checks that withdraw the proxy; 0 = 1, as frp. */
    public int maxFailed = 1;
    /** Seconds between the end of one check and the start of the next; 0 = 10, as frp. */
    public int intervalSeconds = 10;
    /** http: the path requested, required. */
    public String path = "";
    /** http: headers sent with the request ({@code Host} sets the request's host). */
    public List<Header> httpHeaders = new ArrayList<>();

    /** One {@code httpHeaders} entry: {@code { name = "...", value = "..." }}. */
    public static class Header {
        public String name = "";
        public String value = "";
    }

    /** Whether a check is configured. */
    public boolean enabled() {
        return type != null && !type.isEmpty();
    }
}
