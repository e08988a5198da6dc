package dev.tunnel.client.config;

import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.config.ConfigError;
import dev.tunnel.config.ConfigErrors;
import dev.tunnel.config.ConfigException;
import dev.tunnel.config.ConfigLoader;
import dev.tunnel.config.ValueChecks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * frpc's {@code includes}: more {@code [[proxies]]} and {@code [[visitors]]} from other files,
 * as frp's {@code LoadAdditionalClientConfigs} reads them. Each entry is a path whose last part
 * may be a glob ({@code ./confd/*.toml}); the folder is taken as written, relative to the working
 * directory as every path in the config (and as in frp), and must exist; files are read in name
 * order, in the format their names give (TOML, YAML, JSON). An included file holds only proxies
 * and visitors: frp silently ignores anything else there, tunnel names it as an error. Names
 * must be unique over the main file and every included one (frp: "proxy name is duplicated").
 *
 * <p>Each included file is checked as the main file is, its errors naming its own lines; at most
 * {@value #MAX_FILES} files are read, each under the same size and nesting limits.
 */
final class Includes {

    /** The most files all {@code includes} patterns together may match. */
    static final int MAX_FILES = 100;

    /** What an included file may hold. */
    public static class IncludedFile {
        public List<ProxyConfig> proxies = new ArrayList<>();
        public List<VisitorConfig> visitors = new ArrayList<>();
    }

    private final Path baseDir;
    private final ClientProxyTypes types;

    Includes(Path baseDir, ClientProxyTypes types) {
        this.baseDir = baseDir;
        this.types = types;
    }

    /** Appends the proxies and visitors of every included file to {@code cfg}; every problem goes to {@code errors}. */
    void merge(ClientConfig cfg, ValueChecks checks) {
        ConfigErrors errors = checks.errors();
        Set<String> proxyNames = new HashSet<>(cfg.proxies.stream().map(p -> p.name).toList());
        Set<String> visitorNames = new HashSet<>(cfg.visitors.stream().map(v -> v.name).toList());
        ConfigLoader<IncludedFile> loader = new ConfigLoader<>(IncludedFile.class, UnsupportedClientKeys.KEYS,
                (included, fileErrors) -> {
                    ValueChecks fileChecks = new ValueChecks(fileErrors, baseDir);
                    new ProxiesValidator(fileChecks, types).validate(included.proxies, cfg.transport.tcpMux,
                            cfg.transport.tls.enable);
                    new VisitorsValidator(fileChecks).validate(included.visitors, cfg.transport.tcpMux,
                            cfg.transport.tls.enable);
                });
        int read = 0;
        for (int i = 0; i < cfg.includes.size(); i++) {
            String key = "includes[" + i + "]";
            for (Path file : matches(key, cfg.includes.get(i), checks)) {
                if (!checks.check(++read <= MAX_FILES, key, "matches more than " + MAX_FILES + " files in all")) {
                    return;
                }
                try {
                    IncludedFile included = loader.load(file);
                    for (ProxyConfig p : included.proxies) {
                        checks.check(proxyNames.add(p.name), key, "proxy \"" + p.name + "\" in " + file
                                + " is already defined (names must be unique)");
                    }
                    for (VisitorConfig v : included.visitors) {
                        checks.check(visitorNames.add(v.name), key, "visitor \"" + v.name + "\" in " + file
                                + " is already defined (names must be unique)");
                    }
                    cfg.proxies.addAll(included.proxies);
                    cfg.visitors.addAll(included.visitors);
                } catch (ConfigException e) {
                    e.errors().forEach(error -> errors.add(new ConfigError(error.file(), error.line(), error.keyPath(),
                            onlyProxiesAndVisitors(error))));
                }
            }
        }
    }

    private List<Path> matches(String key, String pattern, ValueChecks checks) {
        if (!checks.notBlank(key, pattern)) {
            return List.of();
        }
        Path path = baseDir.resolve(pattern);
        Path dir = path.getParent() == null ? baseDir.resolve("") : path.getParent();
        Path written = Path.of(pattern).getParent();
        if (!checks.check(Files.isDirectory(dir), key, "directory \"" + (written == null ? "." : written)
                + "\" does not exist (looked for "
                + dir.toAbsolutePath().normalize() + ")")) {
            return List.of();
        }
        PathMatcher glob = dir.getFileSystem().getPathMatcher("glob:" + path.getFileName());
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                if (glob.matches(entry.getFileName()) && Files.isRegularFile(entry)) {
                    found.add(entry);
                }
                if (found.size() > MAX_FILES) {
                    break;
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            checks.check(false, key, "cannot list \"" + dir + "\" (" + e.getMessage() + ")");
        }
        found.sort(null);
        return found;
    }

    /** An included file's top-level key that is not proxies or visitors gets a message saying so. */
    private static String onlyProxiesAndVisitors(ConfigError error) {
        String message = error.message();
        String key = error.keyPath();
        boolean topLevel = !key.isEmpty() && key.indexOf('.') < 0 && key.indexOf('[') < 0;
        return topLevel && message.startsWith("unknown key")
                ? "\"" + key + "\": an included file holds only [[proxies]] and [[visitors]] (set it in the main file)"
                : message;
    }
}
