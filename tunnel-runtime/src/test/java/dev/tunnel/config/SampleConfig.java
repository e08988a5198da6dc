package dev.tunnel.config;

import java.util.ArrayList;
import java.util.List;

/** A small config class shaped like the real ones, for loader tests. */
public class SampleConfig {
    public String serverAddr = "127.0.0.1";
    public int serverPort = 7000;
    public Transport transport = new Transport();
    public List<Item> items = new ArrayList<>();

    public static class Transport {
        public boolean tcpMux = true;
        public int poolCount = 1;
        public Tls tls = new Tls();
    }

    public static class Tls {
        public boolean enable = true;
        public String certFile;
    }

    public static class Item {
        public String name;
        public int localPort;
    }

    static final UnsupportedKeys UNSUPPORTED = UnsupportedKeys.of("webServer", "transport.quic", "items.transport");

    static SampleConfig parse(String toml) throws ConfigException {
        return parse(toml, name -> null);
    }

    static SampleConfig parse(String toml, java.util.function.Function<String, String> env) throws ConfigException {
        return parseAs(toml, "test.toml", env);
    }

    /** Parses {@code text} in the format its {@code fileName} gives. */
    static SampleConfig parseAs(String text, String fileName, java.util.function.Function<String, String> env)
            throws ConfigException {
        ConfigValidator<SampleConfig> validator = (cfg, errors) -> {
            ValueChecks checks = new ValueChecks(errors, java.nio.file.Path.of("."));
            checks.port("serverPort", cfg.serverPort);
            for (int i = 0; i < cfg.items.size(); i++) {
                checks.port("items[" + i + "].localPort", cfg.items.get(i).localPort);
            }
        };
        return new ConfigLoader<>(SampleConfig.class, UNSUPPORTED, validator).parse(text, fileName, env);
    }
}
