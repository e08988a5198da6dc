package dev.tunnel.client.plugin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** Content-Type of a file from its extension, falling back to {@link Files#probeContentType}. Thread-safe. */
final class ContentTypes {

    private static final String UTF8 = "; charset=utf-8";
    private static final Map<String, String> BY_EXTENSION = Map.ofEntries(
            Map.entry("html", "text/html" + UTF8),
            Map.entry("htm", "text/html" + UTF8),
            Map.entry("css", "text/css" + UTF8),
            Map.entry("js", "text/javascript" + UTF8),
            Map.entry("mjs", "text/javascript" + UTF8),
            Map.entry("json", "application/json"),
            Map.entry("txt", "text/plain" + UTF8),
            Map.entry("md", "text/markdown" + UTF8),
            Map.entry("csv", "text/csv" + UTF8),
            Map.entry("xml", "application/xml"),
            Map.entry("svg", "image/svg+xml"),
            Map.entry("png", "image/png"),
            Map.entry("jpg", "image/jpeg"),
            Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"),
            Map.entry("webp", "image/webp"),
            Map.entry("ico", "image/x-icon"),
            Map.entry("pdf", "application/pdf"),
            Map.entry("zip", "application/zip"),
            Map.entry("gz", "application/gzip"),
            Map.entry("tar", "application/x-tar"),
            Map.entry("wasm", "application/wasm"),
            Map.entry("mp4", "video/mp4"),
            Map.entry("webm", "video/webm"),
            Map.entry("mp3", "audio/mpeg"),
            Map.entry("woff", "font/woff"),
            Map.entry("woff2", "font/woff2"));

    static final String DEFAULT = "application/octet-stream";

    private ContentTypes() {
    }

    static String of(Path file) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        if (dot >= 0) {
            String known = BY_EXTENSION.get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
            if (known != null) {
                return known;
            }
        }
        try {
            String probed = Files.probeContentType(file);
            return probed != null ? probed : DEFAULT;
        } catch (IOException e) {
            return DEFAULT;
        }
    }
}
