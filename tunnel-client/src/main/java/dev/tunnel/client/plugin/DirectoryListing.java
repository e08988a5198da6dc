package dev.tunnel.client.plugin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Renders a directory as a small HTML page of links, names escaped. Stateless and thread-safe. */
final class DirectoryListing {

    /** Listings stop here so a huge directory cannot blow up one response. */
    static final int MAX_ENTRIES = 10_000;

    private DirectoryListing() {
    }

    /**
     * @param requestPath the raw request path, ending in {@code /}; shown as the title
     * @param showParent  whether to link {@code ../}
     */
    static String render(Path directory, String requestPath, boolean showParent) throws IOException {
        List<String> names = new ArrayList<>();
        boolean truncated = false;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                if (names.size() == MAX_ENTRIES) {
                    truncated = true;
                    break;
                }
                String name = entry.getFileName().toString();
                names.add(Files.isDirectory(entry) ? name + "/" : name);
            }
        }
        names.sort(null);
        String title = escape(decodeForTitle(requestPath));
        StringBuilder html = new StringBuilder(256 + names.size() * 64);
        html.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Index of ").append(title)
                .append("</title></head>\n<body><h1>Index of ").append(title).append("</h1>\n<ul>\n");
        if (showParent) {
            html.append("<li><a href=\"../\">../</a></li>\n");
        }
        for (String name : names) {
            html.append("<li><a href=\"").append(escape(encodeHref(name))).append("\">")
                    .append(escape(name)).append("</a></li>\n");
        }
        html.append("</ul>\n");
        if (truncated) {
            html.append("<p>Listing truncated at ").append(MAX_ENTRIES).append(" entries.</p>\n");
        }
        return html.append("</body></html>\n").toString();
    }

    /** HTML-escapes text for element content and double-quoted attributes. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** Percent-encodes a name for a relative link, keeping the trailing {@code /} of directories. */
    static String encodeHref(String name) {
        boolean directory = name.endsWith("/");
        String bare = directory ? name.substring(0, name.length() - 1) : name;
        StringBuilder out = new StringBuilder(bare.length() + 8);
        for (byte b : bare.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-._~".indexOf(c) >= 0) {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return directory ? out.append('/').toString() : out.toString();
    }

    private static String decodeForTitle(String rawPath) {
        StringBuilder out = new StringBuilder();
        for (String segment : rawPath.split("/", -1)) {
            String decoded = RequestPaths.decode(segment);
            out.append(decoded == null ? segment : decoded).append('/');
        }
        return out.substring(0, out.length() - 1);
    }
}
