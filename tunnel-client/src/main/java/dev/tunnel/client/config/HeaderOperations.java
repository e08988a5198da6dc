package dev.tunnel.client.config;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code requestHeaders} / {@code responseHeaders} of an http proxy: headers the server sets (frp's {@code set}). */
public class HeaderOperations {
    /** Header name to value; a header the request or response already has is replaced. */
    public Map<String, String> set = new LinkedHashMap<>();
}
