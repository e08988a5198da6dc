package dev.tunnel.client.admin;

import dev.tunnel.web.Json;
import dev.tunnel.web.Routes;
import dev.tunnel.web.WebRequest;
import dev.tunnel.web.WebResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The client's admin API, with frpc's paths and JSON: {@code GET /api/status} (proxies by
 * type), {@code GET /api/servers} (tunnel extension: each server's session), {@code GET /api/reload}, {@code GET /api/config}, {@code PUT /api/config},
 * {@code POST /api/stop}, {@code /healthz}. {@code POST /api/reload} works too. Reload, stop and
 * PUT change state, so they are refused to cross-site requests (see the web package).
 *
 * <p>{@code PUT /api/config} checks the new file first and answers 400 with every error when it
 * is invalid, leaving the file as it was (frpc writes whatever it is given); it does not reload.
 */
public final class AdminApi {
    private final AdminControl control;
    private final AdminControl.Reload reload;
    private final Path configFile;
    private final Function<String, String> validate;

    /**
     * @param reload   hot reload, or null where the client cannot reload (no reload routes then)
     * @param validate checks a config text: null when valid, else every error
     */
    public AdminApi(AdminControl control, AdminControl.Reload reload, Path configFile,
                    Function<String, String> validate) {
        this.control = control;
        this.reload = reload;
        this.configFile = configFile;
        this.validate = validate;
    }

    public Routes routes() {
        Routes routes = new Routes()
                .open("/healthz", r -> WebResponse.ok())
                .get("/api/status", r -> status())
                .get("/api/servers", r -> servers())
                .get("/api/config", r -> readConfig())
                .change(HttpMethod.PUT, "/api/config", this::writeConfig)
                .change(HttpMethod.POST, "/api/stop", r -> {
                    control.stop();
                    return WebResponse.ok();
                });
        if (reload != null) {
            routes.change(HttpMethod.GET, "/api/reload", r -> reload())
                    .change(HttpMethod.POST, "/api/reload", r -> reload());
        }
        return routes;
    }

    private WebResponse status() {
        Map<String, List<AdminControl.ProxyState>> byType = new LinkedHashMap<>();
        for (AdminControl.ProxyState p : control.status()) {
            byType.computeIfAbsent(p.type(), t -> new java.util.ArrayList<>()).add(p);
        }
        return Json.response(json -> {
            json.writeStartObject();
            for (Map.Entry<String, List<AdminControl.ProxyState>> e : byType.entrySet()) {
                json.writeArrayFieldStart(e.getKey());
                for (AdminControl.ProxyState p : e.getValue().stream()
                        .sorted(java.util.Comparator.comparing(AdminControl.ProxyState::name)).toList()) {
                    json.writeStartObject();
                    json.writeStringField("name", p.name());
                    json.writeStringField("type", p.type());
                    json.writeStringField("status", p.status());
                    json.writeStringField("err", p.error());
                    json.writeStringField("local_addr", p.localAddr());
                    json.writeStringField("plugin", p.plugin());
                    json.writeStringField("remote_addr", p.remoteAddr());
                    json.writeEndObject();
                }
                json.writeEndArray();
            }
            json.writeEndObject();
        });
    }

    private WebResponse servers() {
        return Json.response(json -> {
            json.writeStartArray();
            for (AdminControl.ServerState s : control.servers()) {
                json.writeStartObject();
                json.writeStringField("addr", s.addr());
                json.writeStringField("state", s.state());
                json.writeStringField("since", s.since());
                json.writeStringField("err", s.error());
                json.writeEndObject();
            }
            json.writeEndArray();
        });
    }

    private WebResponse reload() {
        try {
            return WebResponse.text(HttpResponseStatus.OK, reload.reload());
        } catch (AdminControl.ReloadException e) {
            return WebResponse.text(HttpResponseStatus.BAD_REQUEST, "reload refused, nothing changed:\n" + e.getMessage());
        }
    }

    private WebResponse readConfig() throws IOException {
        return new WebResponse(HttpResponseStatus.OK, WebResponse.TEXT, Files.readAllBytes(configFile), Map.of());
    }

    private WebResponse writeConfig(WebRequest r) throws IOException {
        if (r.body().length == 0) {
            return WebResponse.text(HttpResponseStatus.BAD_REQUEST, "body can't be empty");
        }
        String errors = validate.apply(r.bodyText());
        if (errors != null) {
            return WebResponse.text(HttpResponseStatus.BAD_REQUEST, "config refused, file unchanged:\n" + errors);
        }
        Path dir = configFile.toAbsolutePath().getParent();
        Path temp = Files.createTempFile(dir, ".tunnel-config", ".tmp");
        try {
            Files.write(temp, r.body());
            try {
                Files.move(temp, configFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, configFile, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        return WebResponse.ok();
    }

}
