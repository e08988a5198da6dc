package dev.tunnel.client;

import dev.tunnel.client.admin.AdminApi;
import dev.tunnel.client.admin.AdminControl;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.config.ConfigException;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.web.WebServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The running client as its admin API sees it ({@code webServer.*}): the proxies' states for
 * {@code /api/status} (frp's words: "wait start" until the server answers, then "running" or
 * "start error"; "check failed" while its health check withdraws it), each server's session for
 * {@code /api/servers}, the config file for
 * {@code /api/config}, hot reload ({@link ConfigReloader}) and a graceful stop.
 *
 * <p>Threading: the API calls in from its own thread; the proxies' states are read from the
 * client's concurrent status map.
 */
final class ClientAdmin implements AdminControl, AutoCloseable {
    private final TunnelClient client;
    private final ConfigReloader reloader;
    private final Path configFile;
    private final Runnable stop;
    private final WebServer web;

    /**
     * Starts the admin API of {@code client} (on its event loops).
     *
     * @param stop stops the whole client process gracefully; called on a thread of its own
     */
    ClientAdmin(TunnelClient client, ConfigReloader reloader, ClientConfig config, Path configFile, Runnable stop) {
        this.client = client;
        this.reloader = reloader;
        this.configFile = configFile;
        this.stop = stop;
        this.web = WebServer.start(config.webServer.settings(),
                new AdminApi(this, reloader, configFile, ClientAdmin::check).routes(), client.eventLoops(),
                Transports.serverChannel(), "admin API");
    }

    @Override
    public List<ProxyState> status() {
        ClientConfig config = reloader.current();
        List<ProxyState> states = new ArrayList<>();
        for (ProxyConfig p : config.activeProxies()) {
            TunnelClient.ProxyStatus s = client.proxy(p.name).orElse(null);
            String health = client.healthFailure(p.name).orElse(null);
            String status = s == null ? "wait start" : s.ok() ? "running" : "start error";
            String error = s == null ? "" : s.error();
            if (health != null) {
                // withdrawn by its health check: frp's phase "check failed", the last check's error
                status = health.isEmpty() ? "wait start" : "check failed";
                error = health;
                s = null;
            }
            String local = p.plugin != null ? "" : p.localIP + ":" + p.localPort;
            String remote = s != null && s.ok() ? config.serverEndpoints().get(0).host() + ":" + s.remotePort() : "";
            states.add(new ProxyState(p.name, p.type, status, error, local,
                    p.plugin == null ? "" : p.plugin.type, remote));
        }
        return states;
    }

    @Override
    public List<ServerState> servers() {
        return client.servers().stream().map(s -> new ServerState(s.address(), s.state().name().toLowerCase(
                java.util.Locale.ROOT), s.since().toString(), s.lastError())).toList();
    }

    @Override
    public void stop() {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(100); // lets the answer to POST /api/stop leave first, as frpc does
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stop.run();
        }, "admin-stop");
        t.start();
    }

    @Override
    public void close() {
        web.close();
    }

    /** Null when {@code toml} is a valid client config, else every error. */
    static String check(String toml) {
        try {
            ClientConfig.parse(toml, "request body", System::getenv);
            return null;
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }
}
