package dev.tunnel.server.web;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tunnel.server.config.PortRange;
import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.web.Json;
import dev.tunnel.web.Routes;
import dev.tunnel.web.WebRequest;
import dev.tunnel.web.WebResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's REST API with frp's paths and JSON field names, so frp's dashboard scripts keep
 * working: {@code /api/serverinfo}, {@code /api/proxy/{type}}, {@code /api/proxy/{type}/{name}},
 * {@code /api/proxies/{name}}, {@code DELETE /api/proxies?status=offline} (forgets the offline
 * proxies), {@code /api/traffic/{name}}, {@code /api/clients}, {@code /api/clients/{key}},
 * {@code /healthz}; with
 * {@code enablePrometheus}, {@code /metrics}; and the dashboard under {@code /static/}. Not in
 * frp: {@code /api/tunnel/history[/{name}]}, the last hour of traffic kept on the server, and in
 * each proxy's entry its {@code type}, {@code remotePort} and public {@code domains}, which stay
 * when it goes offline (frp's {@code conf} is null then).
 *
 * <p>Traffic follows frp: "today" figures are the bytes of the current local day, {@code in}
 * is what came from the public side, {@code out} what went to it.
 */
public final class ServerApi {
    private static final Logger log = LoggerFactory.getLogger(ServerApi.class);
    /** frp's format of lastStartTime / lastCloseTime. */
    private static final DateTimeFormatter FRP_TIME = DateTimeFormatter.ofPattern("MM-dd HH:mm:ss");

    private final ServerConfig config;
    private final ServerStats stats;
    private final String version;
    private final List<String> types;

    /** {@code types}: the names of the proxy types this server serves (the dashboard lists each). */
    public ServerApi(ServerConfig config, ServerStats stats, String version, List<String> types) {
        this.config = config;
        this.stats = stats;
        this.version = version;
        this.types = List.copyOf(types);
    }

    /** Every route of the server's web server. */
    public Routes routes() {
        Routes routes = new Routes()
                .open("/healthz", r -> WebResponse.ok())
                .get("/api/serverinfo", r -> serverInfo())
                .get("/api/proxy/{type}", this::proxiesByType)
                .get("/api/proxy/{type}/{name}", this::proxyByTypeAndName)
                .get("/api/traffic/{name}", this::traffic)
                .get("/api/proxies/{name}", this::proxyByName)
                .change(HttpMethod.DELETE, "/api/proxies", this::deleteProxies)
                .get("/api/clients", this::clients)
                .get("/api/clients/{key}", this::client)
                .get("/api/tunnel/history", r -> history(stats.lastHour(), ServerStats.SERVER_STEP))
                .get("/api/tunnel/history/{name}", this::proxyHistory);
        if (config.enablePrometheus) {
            ServerMetrics metrics = new ServerMetrics(stats);
            routes.get("/metrics", r -> metrics.scrape());
        }
        Dashboard.addTo(routes, types);
        return routes;
    }

    WebResponse serverInfo() {
        List<ServerStats.ProxyView> proxies = stats.proxies();
        long clients = stats.clients().stream().filter(ServerStats.ClientView::online).count();
        Map<String, Long> byType = new TreeMap<>(proxies.stream().filter(ServerStats.ProxyView::online)
                .collect(Collectors.groupingBy(ServerStats.ProxyView::type, Collectors.counting())));
        return Json.response(json -> {
            json.writeStartObject();
            json.writeStringField("version", version);
            json.writeNumberField("bindPort", config.bindPort);
            json.writeNumberField("vhostHTTPPort", config.vhostHTTPPort);
            json.writeNumberField("vhostHTTPSPort", config.vhostHTTPSPort);
            json.writeNumberField("tcpmuxHTTPConnectPort", 0);
            json.writeNumberField("kcpBindPort", 0);
            json.writeNumberField("quicBindPort", 0);
            json.writeStringField("subdomainHost", config.subDomainHost);
            json.writeNumberField("maxPoolCount", config.transport.maxPoolCount);
            json.writeNumberField("maxPortsPerClient", config.maxPortsPerClient);
            json.writeNumberField("heartbeatTimeout", config.transport.heartbeatTimeout);
            if (!config.allowPorts.isEmpty()) {
                json.writeStringField("allowPortsStr", allowPorts(config.allowPorts));
            }
            if (config.transport.tls.force) {
                json.writeBooleanField("tlsForce", true);
            }
            json.writeNumberField("totalTrafficIn", proxies.stream().mapToLong(ServerStats.ProxyView::todayIn).sum());
            json.writeNumberField("totalTrafficOut", proxies.stream().mapToLong(ServerStats.ProxyView::todayOut).sum());
            json.writeNumberField("curConns", proxies.stream().mapToLong(ServerStats.ProxyView::connections).sum());
            json.writeNumberField("clientCounts", clients);
            json.writeObjectFieldStart("proxyTypeCount");
            for (Map.Entry<String, Long> e : byType.entrySet()) {
                json.writeNumberField(e.getKey(), e.getValue());
            }
            json.writeEndObject();
            json.writeEndObject();
        });
    }

    private WebResponse proxiesByType(WebRequest r) {
        String type = r.param("type");
        List<ServerStats.ProxyView> proxies = stats.proxies().stream().filter(p -> p.type().equals(type)).toList();
        return Json.response(json -> {
            json.writeStartObject();
            json.writeArrayFieldStart("proxies");
            for (ServerStats.ProxyView p : proxies) {
                writeProxy(json, p);
            }
            json.writeEndArray();
            json.writeEndObject();
        });
    }

    private WebResponse proxyByTypeAndName(WebRequest r) {
        String type = r.param("type");
        String name = r.param("name");
        return stats.proxies().stream().filter(p -> p.type().equals(type) && p.name().equals(name)).findFirst()
                .map(p -> Json.response(json -> writeProxy(json, p)))
                .orElseGet(() -> WebResponse.text(HttpResponseStatus.NOT_FOUND, "no proxy info found"));
    }

    private WebResponse proxyByName(WebRequest r) {
        String name = r.param("name");
        return stats.proxies().stream().filter(p -> p.name().equals(name)).findFirst()
                .map(p -> Json.response(json -> writeProxy(json, p)))
                .orElseGet(() -> Json.general(HttpResponseStatus.NOT_FOUND, "no proxy info found"));
    }

    /** frp's {@code DELETE /api/proxies?status=offline}: forgets every offline proxy's figures. */
    private WebResponse deleteProxies(WebRequest r) {
        if (!"offline".equals(r.query("status"))) {
            return Json.general(HttpResponseStatus.BAD_REQUEST, "status only support offline");
        }
        int cleared = stats.clearOfflineProxies();
        log.info("cleared [{}] offline proxies", cleared);
        return Json.general(HttpResponseStatus.OK, "success");
    }

    private WebResponse traffic(WebRequest r) {
        String name = r.param("name");
        long[][] days = stats.lastDays(name);
        if (days == null) {
            return WebResponse.text(HttpResponseStatus.NOT_FOUND, "no proxy info found");
        }
        return Json.response(json -> {
            json.writeStartObject();
            json.writeStringField("name", name);
            json.writeFieldName("trafficIn");
            json.writeArray(days[0], 0, days[0].length);
            json.writeFieldName("trafficOut");
            json.writeArray(days[1], 0, days[1].length);
            json.writeEndObject();
        });
    }

    private WebResponse proxyHistory(WebRequest r) {
        double[][] rates = stats.lastHour(r.param("name"));
        return rates == null ? WebResponse.text(HttpResponseStatus.NOT_FOUND, "no proxy info found")
                : history(rates, ProxyTraffic.MINUTE);
    }

    /** {@code {"step": seconds, "in": [bytes/s, ...], "out": [...]}}, oldest first, the last point still filling. */
    private static WebResponse history(double[][] rates, int step) {
        return Json.response(json -> {
            json.writeStartObject();
            json.writeNumberField("step", step);
            json.writeFieldName("in");
            writeRounded(json, rates[0]);
            json.writeFieldName("out");
            writeRounded(json, rates[1]);
            json.writeEndObject();
        });
    }

    private static void writeRounded(JsonGenerator json, double[] values) throws IOException {
        json.writeStartArray();
        for (double v : values) {
            json.writeNumber(Math.round(v));
        }
        json.writeEndArray();
    }

    private WebResponse clients(WebRequest r) {
        String user = r.query("user");
        String clientId = r.query("clientId");
        String runId = r.query("runId");
        String status = r.query("status");
        List<ServerStats.ClientView> clients = stats.clients().stream()
                .filter(c -> user == null || user.isEmpty() || c.user().equals(user))
                .filter(c -> clientId == null || clientId.isEmpty() || c.clientId().equals(clientId))
                .filter(c -> runId == null || runId.isEmpty() || c.runId().equals(runId))
                .filter(c -> status == null || !status.equalsIgnoreCase("online") || c.online())
                .filter(c -> status == null || !status.equalsIgnoreCase("offline") || !c.online())
                .toList();
        return Json.response(json -> {
            json.writeStartArray();
            for (ServerStats.ClientView c : clients) {
                writeClient(json, c);
            }
            json.writeEndArray();
        });
    }

    private WebResponse client(WebRequest r) {
        String key = r.param("key");
        return stats.clients().stream().filter(c -> c.key().equals(key)).findFirst()
                .map(c -> Json.response(json -> writeClient(json, c)))
                .orElseGet(() -> Json.general(HttpResponseStatus.NOT_FOUND, "client " + key + " not found"));
    }

    private static void writeClient(JsonGenerator json, ServerStats.ClientView c) throws IOException {
        json.writeStartObject();
        json.writeStringField("key", c.key());
        json.writeStringField("user", c.user());
        json.writeStringField("clientID", c.clientId());
        json.writeStringField("runID", c.runId());
        json.writeStringField("version", c.version());
        json.writeStringField("hostname", c.hostname());
        json.writeStringField("clientIP", c.ip());
        json.writeNumberField("firstConnectedAt", c.firstConnectedAt());
        json.writeNumberField("lastConnectedAt", c.lastConnectedAt());
        if (c.disconnectedAt() != 0) {
            json.writeNumberField("disconnectedAt", c.disconnectedAt());
        }
        json.writeBooleanField("online", c.online());
        writeMap(json, "metas", c.metas());
        if (c.online() && c.rttNanos() > 0) {
            json.writeNumberField("rttMillis", c.rttNanos() / 1e6);
        }
        json.writeEndObject();
    }

    private void writeProxy(JsonGenerator json, ServerStats.ProxyView p) throws IOException {
        ProxyLabels labels = p.labels();
        json.writeStartObject();
        json.writeStringField("name", p.name());
        json.writeStringField("type", p.type()); // not in frp, nor the two below
        json.writeNumberField("remotePort", p.remotePort());
        writeList(json, "domains", domains(labels));
        if (p.online()) {
            json.writeObjectFieldStart("conf");
            json.writeStringField("name", p.name());
            json.writeStringField("type", p.type());
            json.writeNumberField("remotePort", p.remotePort());
            writeList(json, "customDomains", labels.customDomains());
            if (!labels.subdomain().isEmpty()) {
                json.writeStringField("subdomain", labels.subdomain());
            }
            writeList(json, "locations", labels.locations());
            writeMap(json, "metadatas", p.labels().metadatas());
            writeMap(json, "annotations", p.labels().annotations());
            if (!p.labels().group().isEmpty()) {
                // the group only: its key is a secret
                json.writeObjectFieldStart("loadBalancer");
                json.writeStringField("group", p.labels().group());
                json.writeEndObject();
            }
            json.writeEndObject();
        } else {
            json.writeNullField("conf");
        }
        if (!p.user().isEmpty()) {
            json.writeStringField("user", p.user());
        }
        json.writeStringField("clientID", p.clientId());
        json.writeNumberField("todayTrafficIn", p.todayIn());
        json.writeNumberField("todayTrafficOut", p.todayOut());
        json.writeNumberField("curConns", p.connections());
        if (p.droppedDatagrams() != null) {
            json.writeNumberField("droppedDatagrams", p.droppedDatagramsTotal()); // not in frp: a udp proxy's drops
        }
        json.writeStringField("lastStartTime", frpTime(p.lastStartMillis()));
        json.writeStringField("lastCloseTime", frpTime(p.lastCloseMillis()));
        json.writeStringField("status", p.online() ? "online" : "offline");
        json.writeEndObject();
    }

    /** The host names a vhost proxy answers for: its custom domains and its subdomain under subDomainHost. */
    private List<String> domains(ProxyLabels labels) {
        if (labels.subdomain().isEmpty() || config.subDomainHost.isEmpty()) {
            return labels.customDomains();
        }
        List<String> all = new java.util.ArrayList<>(labels.customDomains());
        all.add(labels.subdomain() + "." + config.subDomainHost);
        return all;
    }

    /** {@code name: [v, ...]}, omitted when empty (frp's {@code omitempty}). */
    private static void writeList(JsonGenerator json, String name, List<String> list) throws IOException {
        if (list.isEmpty()) {
            return;
        }
        json.writeArrayFieldStart(name);
        for (String v : list) {
            json.writeString(v);
        }
        json.writeEndArray();
    }

    /** {@code name: {k: v, ...}}, omitted when empty (frp's {@code omitempty}). */
    private static void writeMap(JsonGenerator json, String name, java.util.Map<String, String> map) throws IOException {
        if (map.isEmpty()) {
            return;
        }
        json.writeObjectFieldStart(name);
        for (java.util.Map.Entry<String, String> e : new java.util.TreeMap<>(map).entrySet()) {
            json.writeStringField(e.getKey(), e.getValue());
        }
        json.writeEndObject();
    }

    private static String frpTime(long millis) {
        return millis == 0 ? "" : FRP_TIME.format(Instant.ofEpochMilli(millis).atZone(ZoneId.systemDefault()));
    }

    private static String allowPorts(List<PortRange> ranges) {
        return ranges.stream().map(r -> r.single != 0 ? Integer.toString(r.single) : r.start + "-" + r.end)
                .collect(Collectors.joining(","));
    }
}
