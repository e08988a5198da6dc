package dev.tunnel.dist;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/** Reads tar and tar.gz files for {@link DistPackagesTest}. */
final class Archives {
    private Archives() {
    }

    /** Each entry's name (without a leading ./ or / and a trailing /) and permission bits. */
    static Map<String, Integer> tarModes(Path tarGz) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(tarGz))) {
            return tarModes(in);
        }
    }

    static Map<String, Integer> tarModes(InputStream tar) throws IOException {
        Map<String, Integer> modes = new LinkedHashMap<>();
        TarArchiveInputStream entries = new TarArchiveInputStream(tar);
        for (TarArchiveEntry entry = entries.getNextEntry(); entry != null; entry = entries.getNextEntry()) {
            modes.put(name(entry), entry.getMode() & 07777);
        }
        return modes;
    }

    static String name(TarArchiveEntry entry) {
        return entry.getName().replaceFirst("^\\./", "").replaceFirst("^/", "").replaceFirst("/$", "");
    }
}
