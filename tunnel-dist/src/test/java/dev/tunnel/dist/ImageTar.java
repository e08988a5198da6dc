package dev.tunnel.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * An image tar as Jib's buildTar writes it (Docker's {@code docker save} layout): manifest.json
 * names the config JSON and the layers, gzipped tars, in order.
 */
final class ImageTar {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final JsonNode config;
    private final List<String> layers;
    private final Map<String, byte[]> blobs;

    private ImageTar(JsonNode config, List<String> layers, Map<String, byte[]> blobs) {
        this.config = config;
        this.layers = layers;
        this.blobs = blobs;
    }

    static ImageTar read(Path tar) throws IOException {
        Map<String, byte[]> blobs = new HashMap<>();
        try (TarArchiveInputStream entries = new TarArchiveInputStream(Files.newInputStream(tar))) {
            for (TarArchiveEntry entry = entries.getNextEntry(); entry != null; entry = entries.getNextEntry()) {
                blobs.put(Archives.name(entry), entries.readAllBytes());
            }
        }
        JsonNode manifest = JSON.readTree(blobs.get("manifest.json")).get(0);
        List<String> layers = new ArrayList<>();
        manifest.get("Layers").forEach(layer -> layers.add(layer.asText()));
        return new ImageTar(JSON.readTree(blobs.get(manifest.get("Config").asText())), layers, blobs);
    }

    List<String> entrypoint() {
        return strings("Entrypoint");
    }

    List<String> cmd() {
        return strings("Cmd");
    }

    List<String> env() {
        return strings("Env");
    }

    String user() {
        return config.path("config").path("User").asText();
    }

    List<String> layers() {
        return layers;
    }

    /** The files of layer i with their permission bits. */
    Map<String, Integer> files(int i) throws IOException {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(blobs.get(layers.get(i))))) {
            return Archives.tarModes(in);
        }
    }

    /** Unpacks the layers in order under root, with their permission bits, and returns root. */
    Path extract(Path root) throws IOException {
        for (String layer : layers) {
            try (TarArchiveInputStream entries = new TarArchiveInputStream(
                    new GZIPInputStream(new java.io.ByteArrayInputStream(blobs.get(layer))))) {
                for (TarArchiveEntry entry = entries.getNextEntry(); entry != null; entry = entries.getNextEntry()) {
                    Path path = root.resolve(Archives.name(entry));
                    if (entry.isDirectory()) {
                        Files.createDirectories(path);
                    } else if (entry.isSymbolicLink()) {
                        Files.createDirectories(path.getParent());
                        Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                        continue;
                    } else {
                        Files.createDirectories(path.getParent());
                        Files.copy(entries, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(rwx(entry.getMode())));
                }
            }
        }
        return root;
    }

    private List<String> strings(String field) {
        List<String> values = new ArrayList<>();
        config.path("config").path(field).forEach(value -> values.add(value.asText()));
        return values;
    }

    private static String rwx(int mode) {
        StringBuilder text = new StringBuilder();
        for (int shift = 6; shift >= 0; shift -= 3) {
            int bits = mode >> shift;
            text.append((bits & 4) != 0 ? 'r' : '-').append((bits & 2) != 0 ? 'w' : '-').append((bits & 1) != 0 ? 'x' : '-');
        }
        return text.toString();
    }
}
