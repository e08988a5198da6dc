package dev.tunnel.server.web;

import dev.tunnel.protocol.udp.UdpDrops;
import dev.tunnel.server.proxy.VisitorRules;
import dev.tunnel.server.vhost.VhostSettings;
import dev.tunnel.web.WebResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot.UnknownDataPointSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.Map;

/**
 * {@code /metrics}: the server's figures in Prometheus' text format, written by Prometheus' own
 * Java model and text writer (prometheus-metrics-model and -exposition-textformats, ~250 KB, no
 * protobuf). The snapshot is built from {@link ServerStats} at each scrape: no second set of
 * counters to keep in step.
 *
 * <p>frp's metrics keep frp's names and labels, so Grafana boards made for frps work:
 * {@code frp_server_client_counts}, {@code frp_server_proxy_counts{type}},
 * {@code frp_server_proxy_counts_detailed{type,name}}, {@code frp_server_connection_counts{name,type}},
 * {@code frp_server_traffic_in{name,type}}, {@code frp_server_traffic_out{name,type}}. The two
 * traffic series are counters in frp; the Java writer would name a counter {@code ..._total}, so
 * they are exposed untyped under frp's exact names ({@code rate()} works on them alike).
 *
 * <p>The process's and the JVM's: {@link RuntimeMetrics}.
 *
 * <p>The tunnel's own, per session labelled by the stable client id ({@link #stableId}):
 * {@code tunnel_server_session_rtt_seconds{client,user}} (the heartbeat's
 * smoothed round trip per session), {@code tunnel_server_session_window_stalls_total{client,user}}
 * (times a stream toward the client had bytes but no credit: transitions, not bytes),
 * {@code tunnel_server_session_queue_delay_seconds{client,user}} (moving average of a ready
 * stream's wait for its turn on the connection), {@code tunnel_server_failed_logins_total},
 * {@code tunnel_server_refused_connections_total} (public connections refused by
 * {@code transport.maxStreamsPerClient}, {@code maxConnectionsPerProxy} or {@code maxConnectionsPerIP}),
 * {@code tunnel_server_udp_dropped_datagrams_total{name,type,reason}} (datagrams a udp proxy
 * dropped: {@code oversize}, {@code tunnel_full}, {@code no_credit}, {@code socket_full},
 * {@code no_association}; see {@code UdpDrops.Reason}),
 * {@code tunnel_server_proxy_refused_visitors_total{proxy,reason}} (what a proxy's {@code denyIPs}
 * ({@code denied_ip}), {@code allowIPs} ({@code not_allowed_ip}) or {@code maxNewConnsPerIPPerMinute}
 * ({@code rate_limited}) refused; see {@code VisitorRules}).
 *
 * <p>The vhost ports': {@code tunnel_server_vhost_errors_total{port,reason}} (port {@code http}:
 * {@code bad_request}, {@code slow_head}, {@code slow_body}, {@code not_found}, {@code unauthorized},
 * {@code bad_gateway}, {@code gateway_timeout}; port {@code https}: {@code tls_unrouted}),
 * {@code tunnel_server_vhost_upstreams_total{port,how}} ({@code opened} or {@code reused}
 * connections to apps) and {@code tunnel_server_vhost_retried_requests_total{port}}.
 */
final class ServerMetrics {
    private static final PrometheusTextFormatWriter WRITER = PrometheusTextFormatWriter.create();

    private final ServerStats stats;

    ServerMetrics(ServerStats stats) {
        this.stats = stats;
    }

    WebResponse scrape() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        WRITER.write(out, snapshot(), EscapingScheme.UNDERSCORE_ESCAPING);
        return new WebResponse(HttpResponseStatus.OK, WRITER.getContentType(), out.toByteArray(), Map.of());
    }

    MetricSnapshots snapshot() {
        List<ServerStats.ClientView> clients = stats.clients();
        List<ServerStats.ProxyView> proxies = stats.proxies();

        GaugeSnapshot.Builder clientCounts = GaugeSnapshot.builder().name("frp_server_client_counts")
                .help("The current client counts of frps");
        clientCounts.dataPoint(gauge(clients.stream().filter(ServerStats.ClientView::online).count(), Labels.EMPTY));

        Map<String, Long> byType = new TreeMap<>();
        GaugeSnapshot.Builder detailed = GaugeSnapshot.builder().name("frp_server_proxy_counts_detailed")
                .help("The current number of proxies grouped by type and name");
        GaugeSnapshot.Builder connections = GaugeSnapshot.builder().name("frp_server_connection_counts")
                .help("The current connection counts");
        UnknownSnapshot.Builder trafficIn = UnknownSnapshot.builder().name("frp_server_traffic_in")
                .help("The total in traffic");
        UnknownSnapshot.Builder trafficOut = UnknownSnapshot.builder().name("frp_server_traffic_out")
                .help("The total out traffic");
        CounterSnapshot.Builder udpDrops = CounterSnapshot.builder().name("tunnel_server_udp_dropped_datagrams")
                .help("Datagrams a UDP proxy dropped, by reason (UDP drops rather than queue without bound)");
        for (ServerStats.ProxyView p : proxies) {
            Labels nameType = Labels.of("name", p.name(), "type", p.type());
            if (p.droppedDatagrams() != null) {
                for (UdpDrops.Reason reason : UdpDrops.Reason.values()) {
                    udpDrops.dataPoint(CounterDataPointSnapshot.builder().value(p.droppedDatagrams()[reason.ordinal()])
                            .labels(nameType.add("reason", reason.label())).build());
                }
            }
            if (p.online()) {
                byType.merge(p.type(), 1L, Long::sum);
                detailed.dataPoint(gauge(1, Labels.of("name", p.name(), "type", p.type())));
            }
            connections.dataPoint(gauge(p.connections(), nameType));
            trafficIn.dataPoint(UnknownDataPointSnapshot.builder().value(p.totalIn()).labels(nameType).build());
            trafficOut.dataPoint(UnknownDataPointSnapshot.builder().value(p.totalOut()).labels(nameType).build());
        }
        GaugeSnapshot.Builder proxyCounts = GaugeSnapshot.builder().name("frp_server_proxy_counts")
                .help("The current proxy counts");
        byType.forEach((type, n) -> proxyCounts.dataPoint(gauge(n, Labels.of("type", type))));

        GaugeSnapshot.Builder rtt = GaugeSnapshot.builder().name("tunnel_server_session_rtt_seconds")
                .help("Smoothed round-trip time of each client session's heartbeats");
        CounterSnapshot.Builder stalls = CounterSnapshot.builder().name("tunnel_server_session_window_stalls")
                .help("Times a stream of the session had bytes to send to the client but no credit from it");
        GaugeSnapshot.Builder queueDelay = GaugeSnapshot.builder().name("tunnel_server_session_queue_delay_seconds")
                .help("Moving average of how long a stream with bytes waited for its turn on the session's express connection");
        Set<String> labelled = new HashSet<>();
        for (ServerStats.ClientView c : clients) {
            if (!c.online()) {
                continue;
            }
            Labels session = Labels.of("client", stableId(c, labelled), "user", c.user());
            if (c.rttNanos() > 0) {
                rtt.dataPoint(gauge(c.rttNanos() / 1e9, session));
            }
            stalls.dataPoint(CounterDataPointSnapshot.builder().value(c.windowStalls()).labels(session).build());
            queueDelay.dataPoint(gauge(c.queueDelayNanos() / 1e9, session));
        }
        CounterSnapshot.Builder vhostAnswered = CounterSnapshot.builder().name("tunnel_server_vhost_errors")
                .help("Requests and connections a vhost port answered with an error or closed itself, by reason");
        CounterSnapshot.Builder upstreams = CounterSnapshot.builder().name("tunnel_server_vhost_upstreams")
                .help("Connections to apps a vhost request used: opened for it, or reused from an idle one");
        CounterSnapshot.Builder retried = CounterSnapshot.builder().name("tunnel_server_vhost_retried_requests")
                .help("Requests sent again on a new connection after a reused one failed before any response byte");
        for (Map.Entry<String, VhostSettings.Counters> e : stats.vhostPorts().entrySet()) {
            String port = e.getKey();
            VhostSettings.Counters c = e.getValue();
            Map<String, Long> reasons = port.equals("https")
                    ? Map.of("tls_unrouted", c.tlsUnrouted.get())
                    : Map.of("bad_request", c.badRequests.get(), "slow_head", c.slowHeads.get(),
                            "slow_body", c.slowBodies.get(),
                            "not_found", c.notFound.get(), "unauthorized", c.unauthorized.get(),
                            "bad_gateway", c.badGateway.get(), "gateway_timeout", c.gatewayTimeout.get());
            new TreeMap<>(reasons).forEach((reason, n) -> vhostAnswered.dataPoint(
                    counter(n, Labels.of("port", port, "reason", reason))));
            if (port.equals("http")) {
                upstreams.dataPoint(counter(c.upstreamsOpened.get(), Labels.of("port", port, "how", "opened")));
                upstreams.dataPoint(counter(c.upstreamsReused.get(), Labels.of("port", port, "how", "reused")));
                retried.dataPoint(counter(c.retried.get(), Labels.of("port", port)));
            }
        }
        CounterSnapshot failedLogins = CounterSnapshot.builder().name("tunnel_server_failed_logins")
                .help("Logins refused (bad token or proof, unknown user)")
                .dataPoint(CounterDataPointSnapshot.builder().value(stats.failedLogins()).build()).build();
        CounterSnapshot refused = CounterSnapshot.builder().name("tunnel_server_refused_connections")
                .help("Public connections refused by transport.maxStreamsPerClient, maxConnectionsPerProxy or maxConnectionsPerIP")
                .dataPoint(CounterDataPointSnapshot.builder().value(stats.refusedConnections()).build()).build();

        CounterSnapshot.Builder refusedVisitors = CounterSnapshot.builder().name("tunnel_server_proxy_refused_visitors")
                .help("Public connections, datagram peers and visitors a proxy's allowIPs, denyIPs or"
                        + " maxNewConnsPerIPPerMinute refused");
        stats.refusedVisitors().snapshot().forEach((proxy, counts) -> {
            for (VisitorRules.Reason reason : VisitorRules.Reason.values()) {
                refusedVisitors.dataPoint(counter(counts[reason.ordinal()],
                        Labels.of("proxy", proxy, "reason", reason.label())));
            }
        });

        MetricSnapshots.Builder all = MetricSnapshots.builder();
        for (MetricSnapshot m : List.of(clientCounts.build(), proxyCounts.build(), detailed.build(), connections.build(),
                trafficIn.build(), trafficOut.build(), rtt.build(), stalls.build(), queueDelay.build(), failedLogins,
                refused, udpDrops.build(), vhostAnswered.build(), upstreams.build(), retried.build(),
                refusedVisitors.build())) {
            all.metricSnapshot(m);
        }
        RuntimeMetrics.addTo(all);
        return all.build();
    }

    /**
     * The session's {@code client} label: its {@code clientID}, else its user, else its run id
     * (which a client keeps across reconnects): a series outlives a reconnect. Two online sessions
     * that would share one (two clients of one user, neither with a clientID) fall back to their run ids.
     */
    static String stableId(ServerStats.ClientView c, Set<String> taken) {
        String id = !c.clientId().equals(c.runId()) ? c.clientId() : !c.user().isEmpty() ? c.user() : c.runId();
        return taken.add(id) ? id : c.runId();
    }

    private static CounterDataPointSnapshot counter(long value, Labels labels) {
        return CounterDataPointSnapshot.builder().value(value).labels(labels).build();
    }

    private static GaugeDataPointSnapshot gauge(double value, Labels labels) {
        return GaugeDataPointSnapshot.builder().value(value).labels(labels).build();
    }
}
