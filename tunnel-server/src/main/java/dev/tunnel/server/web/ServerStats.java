package dev.tunnel.server.web;

import dev.tunnel.protocol.udp.UdpDrops;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.RefusedVisitors;
import dev.tunnel.server.vhost.VhostSettings;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The clients and proxies the server has seen, online and recently offline, as frp's dashboard
 * and API show them, plus the counters of events the tunnel adds (failed logins, public
 * connections refused by limits). Sessions report what happens to them; the API and /metrics
 * read it. Bytes, connections and a udp proxy's dropped datagrams are read from the proxies' own
 * counters; this table only remembers what a closed proxy had counted and splits traffic into days.
 *
 * <p>Bounded: at most {@value #MAX_OFFLINE} offline clients and as many offline proxies are kept,
 * the longest offline dropped first ({@link RecentTable}: a proxy or client going on or offline
 * costs a few map operations, however many there are).
 *
 * <p>Threading: sessions on every event loop and the web server call in; the sessions' calls
 * hold the table's lock for a few map operations, the API's listings for one pass over the
 * table. The counters it reads are thread-safe.
 */
public final class ServerStats {
    static final int MAX_OFFLINE = 1000;
    /** Seconds per point of the server-wide traffic history; the server's timer samples this often. */
    public static final int SERVER_STEP = 10;

    /** A proxy's live counters (bytes from and to the public side, open public connections). */
    public interface Traffic {
        long bytesIn();

        long bytesOut();

        long connections();

        /** The datagrams it dropped, by reason, for a proxy of a UDP type; null for others. */
        default UdpDrops datagramDrops() {
            return null;
        }
    }

    /**
     * A proxy's counters on the server: what the relays read from its public connections (or
     * its UDP socket) is "in", what they wrote to them "out", as frp counts; and, for a UDP type,
     * its dropped datagrams. Equal for one proxy.
     */
    public record Counted(ProxyRef proxy) implements Traffic {
        @Override
        public long bytesIn() {
            return proxy.traffic().snapshot().bytesRead();
        }

        @Override
        public long bytesOut() {
            return proxy.traffic().snapshot().bytesWritten();
        }

        @Override
        public long connections() {
            return proxy.traffic().snapshot().open();
        }

        @Override
        public UdpDrops datagramDrops() {
            return proxy.datagramDrops();
        }
    }

    private final Clock clock;
    private final RecentTable<ClientEntry> clients = new RecentTable<>(MAX_OFFLINE);
    private final RecentTable<ProxyEntry> proxies = new RecentTable<>(MAX_OFFLINE);
    private final LongAdder failedLogins = new LongAdder();
    private final RefusedVisitors refusedVisitors = new RefusedVisitors();
    private final LongAdder refusedConnections = new LongAdder();
    /** Every proxy's bytes per {@value #SERVER_STEP} s over the last hour, for the dashboard's chart. */
    private final RateHistory serverTraffic = new RateHistory(SERVER_STEP, 3600 / SERVER_STEP);
    /** The vhost ports' counters by scheme ("http", "https"), in the order they opened. */
    private final Map<String, VhostSettings.Counters> vhostPorts = new LinkedHashMap<>();

    /** Visitors the proxies' allowIPs, denyIPs and maxNewConnsPerIPPerMinute refused. */
    public RefusedVisitors refusedVisitors() {
        return refusedVisitors;
    }

    public ServerStats(Clock clock) {
        this.clock = clock;
    }

    /** A client as the API lists it; times in epoch seconds, 0 = never. */
    record ClientView(String key, String user, String runId, String version, String hostname, String ip,
                      long firstConnectedAt, long lastConnectedAt, long disconnectedAt, boolean online,
                      long rttNanos, long windowStalls, long queueDelayNanos, String clientId,
                      Map<String, String> metas) {
    }

    /**
     * A live session's figures, read at each scrape from any thread: the heartbeat's smoothed
     * round trip, streams stalled for want of the peer's credit, and the moving average of how
     * long a stream with bytes waited for its turn on the connection.
     */
    public interface SessionFigures {
        long rttNanos();

        long windowStalls();

        long queueDelayNanos();
    }

    /**
     * A proxy as the API lists it.
     *
     * @param droppedDatagrams for a proxy that ever carried datagrams, its drops so far indexed by
     *                         {@link UdpDrops.Reason#ordinal()}; null otherwise
     */
    record ProxyView(String name, String type, String user, String clientId, int remotePort, boolean online,
                     long todayIn, long todayOut, long totalIn, long totalOut, long connections,
                     long lastStartMillis, long lastCloseMillis, ProxyLabels labels, long[] droppedDatagrams) {

        /** Datagrams dropped for any reason; 0 for a proxy that carries none. */
        long droppedDatagramsTotal() {
            return droppedDatagrams == null ? 0 : java.util.Arrays.stream(droppedDatagrams).sum();
        }
    }

    private static final class ClientEntry {
        String sessionId;
        String user;
        String runId;
        String version;
        String hostname;
        String ip;
        String clientId;
        Map<String, String> metas = Map.of();
        long first;
        long last;
        long disconnected;
        SessionFigures figures;
    }

    private static final class ProxyEntry {
        String type;
        String user;
        String clientId;
        int remotePort;
        boolean online;
        ProxyLabels labels = ProxyLabels.NONE;
        Traffic live;
        long foldedIn;
        long foldedOut;
        /** Drops of earlier runs of the proxy, by reason; null until it carried datagrams. */
        long[] foldedDrops;
        long lastStart;
        long lastClose;
        ProxyTraffic history;

        long totalIn() {
            return foldedIn + (live == null ? 0 : live.bytesIn());
        }

        long totalOut() {
            return foldedOut + (live == null ? 0 : live.bytesOut());
        }

        long[] drops() {
            UdpDrops now = live == null ? null : live.datagramDrops();
            if (now == null) {
                return foldedDrops == null ? null : foldedDrops.clone();
            }
            long[] out = foldedDrops == null ? new long[UdpDrops.Reason.values().length] : foldedDrops.clone();
            for (UdpDrops.Reason r : UdpDrops.Reason.values()) {
                out[r.ordinal()] += now.count(r);
            }
            return out;
        }
    }

    /** A client logged in (a new session of its run id). */
    public synchronized void clientOnline(String sessionId, String user, String runId, String version, String hostname,
                                          String ip, SessionFigures figures) {
        clientOnline(sessionId, user, runId, version, hostname, ip, "", Map.of(), figures);
    }

    /** A client logged in, with frp's {@code clientID} ("" = none: its run id stands for it) and {@code metadatas.*}. */
    public synchronized void clientOnline(String sessionId, String user, String runId, String version, String hostname,
                                          String ip, String clientId, Map<String, String> metas,
                                          SessionFigures figures) {
        long now = clock.millis() / 1000;
        ClientEntry c = clients.remove(runId);
        if (c == null) {
            c = new ClientEntry();
            c.first = now;
        }
        c.sessionId = sessionId;
        c.user = user;
        c.runId = runId;
        c.version = version;
        c.hostname = hostname;
        c.ip = ip;
        c.clientId = clientId.isEmpty() ? runId : clientId;
        c.metas = Map.copyOf(metas);
        c.last = now;
        c.disconnected = 0;
        c.figures = figures;
        clients.putOnline(runId, c);
    }

    /** Session {@code sessionId} of {@code runId} ended (a newer session of the same client is left alone). */
    public synchronized void clientOffline(String runId, String sessionId) {
        ClientEntry c = clients.online(runId);
        if (c != null && sessionId.equals(c.sessionId) && c.disconnected == 0) {
            c.disconnected = clock.millis() / 1000;
            c.figures = null;
            clients.goOffline(runId);
        }
    }

    /**
     * Proxy {@code name} (as the API names it: {@code user.name} with a user) opened its public side.
     *
     * @param live its counters, or null where the proxy type does not count (its figures read 0)
     */
    public synchronized void proxyOpened(String name, String type, String user, String clientId, int remotePort,
                                         Traffic live) {
        proxyOpened(name, type, user, clientId, remotePort, ProxyLabels.NONE, live);
    }

    /** Proxy {@code name} started, with what its client said about it ({@code labels}). */
    public synchronized void proxyOpened(String name, String type, String user, String clientId, int remotePort,
                                         ProxyLabels labels, Traffic live) {
        ProxyEntry p = proxies.remove(name);
        LocalDate today = today();
        if (p == null) {
            p = new ProxyEntry();
            p.history = new ProxyTraffic(today);
        } else {
            fold(p);
        }
        p.type = type;
        p.user = user;
        p.clientId = clientId;
        p.remotePort = remotePort;
        p.labels = labels;
        p.live = live;
        p.online = true;
        p.lastStart = clock.millis();
        p.history.rebase(p.foldedIn, p.foldedOut); // the live counters count from 0: all they hold is new
        proxies.putOnline(name, p);
    }

    /** Proxy {@code name} closed its public side; its counts are kept. */
    public synchronized void proxyClosed(String name, Traffic live) {
        ProxyEntry p = proxies.online(name);
        if (p == null || !java.util.Objects.equals(p.live, live)) {
            return; // already closed, or replaced by a newer start of the same name
        }
        sample(p, today());
        fold(p);
        p.online = false;
        p.lastClose = clock.millis();
        proxies.goOffline(name);
    }

    /** A login was refused (bad token, unknown user, bad proof). */
    public void loginFailed() {
        failedLogins.increment();
    }

    /**
     * A public connection was refused by a limit ({@code transport.maxStreamsPerClient},
     * {@code maxConnectionsPerProxy}, {@code maxConnectionsPerIP}).
     */
    public void connectionRefused() {
        refusedConnections.increment();
    }

    /** The counters of the vhost port for {@code scheme} ("http" or "https"), on {@code /metrics} from now on. */
    public synchronized void vhostPort(String scheme, VhostSettings.Counters counters) {
        vhostPorts.put(scheme, counters);
    }

    synchronized Map<String, VhostSettings.Counters> vhostPorts() {
        return new LinkedHashMap<>(vhostPorts);
    }

    long failedLogins() {
        return failedLogins.sum();
    }

    long refusedConnections() {
        return refusedConnections.sum();
    }

    synchronized List<ClientView> clients() {
        List<ClientView> out = new ArrayList<>(clients.onlineCount() + clients.offlineCount());
        clients.forEach((runId, c) -> {
            SessionFigures f = c.figures;
            out.add(new ClientView(c.runId, c.user, c.runId, c.version, c.hostname, c.ip, c.first, c.last,
                    c.disconnected, c.disconnected == 0, f == null ? 0 : f.rttNanos(),
                    f == null ? 0 : f.windowStalls(), f == null ? 0 : f.queueDelayNanos(), c.clientId, c.metas));
        });
        out.sort(Comparator.comparing(ClientView::user).thenComparing(ClientView::key));
        return out;
    }

    synchronized List<ProxyView> proxies() {
        LocalDate today = today();
        List<ProxyView> out = new ArrayList<>(proxies.onlineCount() + proxies.offlineCount());
        proxies.forEach((name, p) -> out.add(view(name, p, today)));
        out.sort(Comparator.comparing(ProxyView::name));
        return out;
    }

    /** Forgets every offline proxy (frp's {@code DELETE /api/proxies?status=offline}); returns how many. */
    synchronized int clearOfflineProxies() {
        return proxies.clearOffline();
    }

    /** Bytes per day of proxy {@code name}, today first: {in, out}; null if never seen. */
    synchronized long[][] lastDays(String name) {
        ProxyEntry p = proxies.get(name);
        if (p == null) {
            return null;
        }
        sample(p, today());
        return p.history.lastDays();
    }

    /** Bytes per second of proxy {@code name} in each minute of the last hour, oldest first: {in, out}; null if never seen. */
    synchronized double[][] lastHour(String name) {
        ProxyEntry p = proxies.get(name);
        if (p == null) {
            return null;
        }
        sample(p, today());
        return p.history.lastHour(clock.millis() / 1000);
    }

    /** Bytes per second of every proxy together in each {@value #SERVER_STEP} s of the last hour, oldest first: {in, out}. */
    synchronized double[][] lastHour() {
        sampleAll();
        return serverTraffic.perSecond(clock.millis() / 1000);
    }

    /**
     * Samples every proxy's counters into its history (the server's timer calls this every
     * {@value #SERVER_STEP} s, so bytes land in the minute and the day they moved in).
     */
    public synchronized void sampleAll() {
        LocalDate today = today();
        proxies.forEach((name, p) -> sample(p, today));
    }

    private ProxyView view(String name, ProxyEntry p, LocalDate today) {
        sample(p, today);
        return new ProxyView(name, p.type, p.user, p.clientId, p.remotePort, p.online, p.history.todayIn(),
                p.history.todayOut(), p.totalIn(), p.totalOut(), p.live == null ? 0 : p.live.connections(), p.lastStart,
                p.lastClose, p.labels, p.drops());
    }

    private void sample(ProxyEntry p, LocalDate today) {
        p.history.sample(today, clock.millis() / 1000, p.totalIn(), p.totalOut(), serverTraffic);
    }

    private static void fold(ProxyEntry p) {
        if (p.live != null) {
            p.foldedIn += p.live.bytesIn();
            p.foldedOut += p.live.bytesOut();
            p.foldedDrops = p.drops();
            p.live = null;
        }
    }

    private LocalDate today() {
        return LocalDate.ofInstant(clock.instant(), ZoneId.systemDefault());
    }
}
