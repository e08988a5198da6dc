package dev.tunnel.client.plugin;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps a request URI to a file under the served root, or to the status that refuses it.
 *
 * <p>The raw path is split on {@code /} before percent-decoding, so {@code %2F} never makes a
 * separator; decoded segments {@code ..}, or segments holding {@code /}, {@code \} or NUL, are
 * refused with 403. The result is resolved with symlinks followed and must still lie under the
 * root, else 404. Immutable and thread-safe; {@link #resolve} touches the file system.
 */
final class RequestPaths {

    /** Where a request path leads: {@code file} is set only when {@code status} is 200. */
    record Lookup(HttpResponseStatus status, Path file, String rawPath) {
        static Lookup refuse(HttpResponseStatus status, String rawPath) {
            return new Lookup(status, null, rawPath);
        }
    }

    private final Path root;
    private final List<String> prefix;

    /**
     * @param localPath   directory to serve; must exist
     * @param stripPrefix leading path segments a request must start with, which are removed
     *                    before the lookup (frp's {@code stripPrefix}); empty for none
     */
    RequestPaths(Path localPath, String stripPrefix) {
        try {
            this.root = localPath.toRealPath();
        } catch (IOException e) {
            throw new IllegalArgumentException("localPath " + localPath + ": directory not found or not readable", e);
        }
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("localPath " + localPath + ": not a directory");
        }
        this.prefix = new ArrayList<>();
        for (String segment : (stripPrefix == null ? "" : stripPrefix).split("/")) {
            if (!segment.isEmpty()) {
                prefix.add(segment);
            }
        }
    }

    Path root() {
        return root;
    }

    Lookup resolve(String uri) {
        String rawPath = rawPath(uri);
        if (rawPath.isEmpty() || rawPath.charAt(0) != '/') {
            return Lookup.refuse(HttpResponseStatus.BAD_REQUEST, rawPath);
        }
        List<String> segments = new ArrayList<>();
        for (String raw : rawPath.split("/")) {
            String segment = decode(raw);
            if (segment == null) {
                return Lookup.refuse(HttpResponseStatus.BAD_REQUEST, rawPath);
            }
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..") || segment.indexOf('/') >= 0 || segment.indexOf('\\') >= 0
                    || segment.indexOf('\0') >= 0) {
                return Lookup.refuse(HttpResponseStatus.FORBIDDEN, rawPath);
            }
            segments.add(segment);
        }
        if (segments.size() < prefix.size() || !segments.subList(0, prefix.size()).equals(prefix)) {
            return Lookup.refuse(HttpResponseStatus.NOT_FOUND, rawPath);
        }
        Path target = root;
        for (String segment : segments.subList(prefix.size(), segments.size())) {
            target = target.resolve(segment);
        }
        Path real;
        try {
            real = target.toRealPath();
        } catch (IOException | SecurityException e) {
            return Lookup.refuse(HttpResponseStatus.NOT_FOUND, rawPath);
        }
        if (!real.startsWith(root)) {
            // A symlink inside the root that points outside it.
            return Lookup.refuse(HttpResponseStatus.NOT_FOUND, rawPath);
        }
        return new Lookup(HttpResponseStatus.OK, real, rawPath);
    }

    /** Whether {@code directory} (a resolved real path) is the top of the served tree: no parent link in listings. */
    boolean isTop(Path directory) {
        return directory.equals(root);
    }

    private static String rawPath(String uri) {
        int end = uri.length();
        int query = uri.indexOf('?');
        if (query >= 0) {
            end = query;
        }
        int fragment = uri.indexOf('#');
        if (fragment >= 0 && fragment < end) {
            end = fragment;
        }
        return uri.substring(0, end);
    }

    /** Percent-decodes one path segment as UTF-8 ({@code +} stays a plus); null when malformed. */
    static String decode(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%') {
                if (i + 2 >= segment.length()) {
                    return null;
                }
                int high = Character.digit(segment.charAt(i + 1), 16);
                int low = Character.digit(segment.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return null;
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(encoded, 0, encoded.length);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
