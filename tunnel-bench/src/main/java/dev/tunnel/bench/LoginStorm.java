package dev.tunnel.bench;

import dev.tunnel.client.ServerStatus;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.protocol.transport.Transports;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * N real clients in one JVM, each with P http proxies, on one server: starts them at
 * {@code --start-rate} a second (the first logins are not what is measured), waits until every
 * client is logged in, prints {@code ONLINE <epochMs>}, then watches a restart of the server (done by the
 * caller, e.g. {@code bench/login-storm.sh}): prints {@code LOST <epochMs>} once every client has
 * lost its session and {@code BACK <epochMs> <seconds>} once all are logged in again, or
 * {@code NOT-BACK} with the count still out at {@code --wait} seconds. A client that stops
 * trying (state STOPPED) counts as given up.
 *
 * <p>Threads: every client runs on one shared group of {@code --loops} event loops (default 2),
 * so the driver costs the machine a few threads rather than one per client, and leaves the cores
 * to the server it measures; the main thread polls every client's status every 50 ms.
 */
public final class LoginStorm {
    private LoginStorm() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        String server = args.string("server", "127.0.0.1:7000");
        int clients = (int) args.number("clients", 100, 1, 10_000);
        int proxies = (int) args.number("proxies", 10, 1, 100);
        long waitSeconds = args.number("wait", 60, 1, 600);
        long startEveryMillis = 1000 / args.number("start-rate", 50, 1, 1000);
        EventLoopGroup loops = Transports.newGroup((int) args.number("loops", 2, 1, 64), "storm-clients");
        List<TunnelClient> started = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            started.add(TunnelClient.start(ClientConfig.parse(toml(server, args.string("token", "storm-token"), c, proxies),
                    "storm-" + c + ".toml", System::getenv), ClientProxyTypes.standard(), loops));
            Thread.sleep(startEveryMillis);
        }
        if (!await(started, true, waitSeconds)) {
            System.out.println("NOT-ONLINE " + count(started, ServerStatus.State.ONLINE) + " of " + clients);
            System.exit(1);
        }
        System.out.println("ONLINE " + System.currentTimeMillis());
        await(started, false, 600);
        long lost = System.currentTimeMillis();
        System.out.println("LOST " + lost);
        boolean back = await(started, true, waitSeconds);
        long end = System.currentTimeMillis();
        long online = count(started, ServerStatus.State.ONLINE);
        System.out.println((back ? "BACK " : "NOT-BACK ") + end + " " + (end - lost) / 1000.0 + " online " + online
                + " of " + clients + ", gave up " + count(started, ServerStatus.State.STOPPED));
        System.exit(back ? 0 : 1);
    }

    /** Polls until every client is online (or, with {@code online} false, none is). */
    private static boolean await(List<TunnelClient> clients, boolean online, long seconds) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            long n = count(clients, ServerStatus.State.ONLINE);
            if (online ? n == clients.size() : n == 0) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    private static long count(List<TunnelClient> clients, ServerStatus.State state) {
        return clients.stream().filter(c -> c.servers().get(0).state() == state).count();
    }

    private static String toml(String server, String token, int client, int proxies) {
        int colon = server.lastIndexOf(':');
        StringBuilder b = new StringBuilder()
                .append("serverAddr = \"").append(server, 0, colon).append("\"\n")
                .append("serverPort = ").append(server.substring(colon + 1)).append('\n')
                .append("loginFailExit = false\n")
                .append("auth.token = \"").append(token).append("\"\n");
        for (int p = 0; p < proxies; p++) {
            b.append("[[proxies]]\nname = \"c").append(client).append("-p").append(p).append("\"\n")
                    .append("type = \"http\"\nlocalPort = 19080\ncustomDomains = [\"c").append(client).append("-p")
                    .append(p).append(".example.com\"]\n");
        }
        return b.toString();
    }
}
