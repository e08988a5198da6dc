package dev.tunnel.client;

import dev.tunnel.client.admin.AdminControl;
import dev.tunnel.client.admin.ReloadPlan;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.config.ConfigException;
import dev.tunnel.config.ConfigLoader;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hot reload: re-reads the config file and applies the difference to the running client
 * ({@link ReloadPlan}) through its proxy manager: removed proxies stop (the server closes their
 * ports), changed ones restart under the same id, added ones start; the others are not touched,
 * nor is any connection they carry. A file that does not load changes nothing: the errors are
 * returned (and logged), as {@code verify} lists them. Keys outside {@code [[proxies]]} are
 * named as needing a restart.
 *
 * <p>Threading: reloads are serialized on this object (the admin API and SIGHUP may overlap).
 */
public final class ConfigReloader implements AdminControl.Reload {
    private static final Logger log = LoggerFactory.getLogger(ConfigReloader.class);

    private final TunnelClient client;
    private final Path file;
    private ClientConfig current;
    private ConfigLoader.ParserHold parser;

    public ConfigReloader(TunnelClient client, ClientConfig running, Path file) {
        this.client = client;
        this.current = running;
        this.file = file;
    }

    /**
     * Keeps the config parser loaded from now on, so that the first reload is as quick as the
     * next ones; for a client that expects reloads (its admin API is on). Without it the parser
     * is unloaded after start-up and kept from the first reload on.
     */
    public synchronized void keepParser() {
        if (parser == null) {
            parser = ConfigLoader.holdParser();
        }
    }

    /** The config the proxies were last set from. */
    synchronized ClientConfig current() {
        return current;
    }

    @Override
    public synchronized String reload() throws AdminControl.ReloadException {
        long start = System.nanoTime();
        keepParser(); // a client reloaded once is likely to reload again
        ClientConfig fresh;
        try {
            fresh = ClientConfig.load(file);
        } catch (ConfigException e) {
            log.error("reload of {} refused, nothing changed:\n{}", file, e.getMessage());
            throw new AdminControl.ReloadException(e.getMessage());
        }
        long parsed = System.nanoTime();
        ReloadPlan plan = ReloadPlan.of(current, fresh);
        try {
            for (ProxyConfig p : plan.removed()) {
                client.removeProxy(p.name);
            }
            for (ProxyConfig p : plan.changed()) {
                client.updateProxy(p);
            }
            for (ProxyConfig p : plan.added()) {
                client.addProxy(p);
            }
        } catch (Exception e) {
            // the file was checked as a whole above; a proxy the manager still refuses is named here
            log.error("reload of {} stopped part way ({}): {}", file, plan.summary(), e.getMessage());
            throw new AdminControl.ReloadException("applying " + file + " failed part way: " + e.getMessage());
        }
        current = fresh;
        List<String> refused = refusals(plan);
        if (!refused.isEmpty()) {
            log.error("reload of {} ({}): the server refused {}", file, plan.summary(), String.join("; ", refused));
            throw new AdminControl.ReloadException("the server refused " + String.join("; ", refused));
        }
        long done = System.nanoTime();
        log.info("reloaded {} in {} ms ({} ms reading the file): {}", file, (done - start) / 1_000_000,
                (parsed - start) / 1_000_000, plan.summary());
        return "reloaded: " + plan.summary();
    }

    /**
     * Waits up to {@value #ANSWER_SECONDS} s for the server's answer to each added or changed
     * proxy and returns the refusals ("proxy [web] refused: port 80 not allowed"). A proxy the
     * server has not answered in time (no session now) is not counted: it registers on login.
     */
    private List<String> refusals(ReloadPlan plan) {
        List<String> refused = new java.util.ArrayList<>();
        List<ProxyConfig> asked = new java.util.ArrayList<>(plan.changed());
        asked.addAll(plan.added());
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(ANSWER_SECONDS);
        for (ProxyConfig p : asked) {
            try {
                client.awaitRemotePort(p.name, java.time.Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            } catch (IllegalStateException e) {
                refused.add(e.getMessage());
            } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
                // not answered yet: not a refusal
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return refused;
    }

    private static final int ANSWER_SECONDS = 5;

    /** For SIGHUP: reloads and logs the outcome (the admin API returns it instead). */
    void reloadAndLog() {
        try {
            reload();
        } catch (AdminControl.ReloadException e) {
            // logged by reload()
        }
    }
}
