package dev.tunnel.bench;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.protocol.auth.PakeClient;
import dev.tunnel.protocol.auth.PakeServer;
import dev.tunnel.protocol.auth.TokenVerifier;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Login time of the token login and the PAKE login side by side in one run: one TLS server on
 * loopback, and clients started one after another, alternating {@code auth.pake = "off"} and
 * {@code "preferred"}; each figure is from {@code TunnelClient.start} to its first login
 * (TCP connect, TLS handshake, login), so both include the same fixed costs. Prints the median and
 * the 90th percentile of each and their difference. Run with the test classpath:
 *
 * <pre>
 *   java -cp ... dev.tunnel.bench.LoginTime [logins per kind, default 100] [warm-up per kind, default 20]
 * </pre>
 */
public final class LoginTime {
    private LoginTime() {
    }

    public static void main(String[] args) throws Exception {
        int logins = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int warmUp = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        ServerConfig config = new ServerConfig();
        config.bindAddr = "127.0.0.1";
        config.bindPort = 0;
        config.auth.token = "login-time-token";
        config.auth.maxFailedLogins = 0;
        primitives(logins);
        try (TunnelServer server = TunnelServer.start(config)) {
            long[] token = new long[logins];
            long[] pake = new long[logins];
            for (int i = -warmUp; i < logins; i++) {
                long t = login(server, "off");
                long p = login(server, "preferred");
                if (i >= 0) {
                    token[i] = t;
                    pake[i] = p;
                }
            }
            double tokenMedian = percentile(token, 50);
            double pakeMedian = percentile(pake, 50);
            System.out.printf("logins per kind: %d (after %d warm-up), alternating%n", logins, warmUp);
            System.out.printf("token login: median %.2f ms, p90 %.2f ms%n", tokenMedian, percentile(token, 90));
            System.out.printf("PAKE login:  median %.2f ms, p90 %.2f ms%n", pakeMedian, percentile(pake, 90));
            System.out.printf("difference of the medians: %+.2f ms%n", pakeMedian - tokenMedian);
        }
        System.exit(0);
    }

    /** The median cost of each SPAKE2+ step on one thread (after as many runs to warm up). */
    private static void primitives(int runs) {
        TokenVerifier verifier = TokenVerifier.create("login-time-token");
        long[][] t = new long[4][runs];
        for (int i = -runs; i < runs; i++) {
            long t0 = System.nanoTime();
            PakeServer server = PakeServer.start(verifier);
            long t1 = System.nanoTime();
            PakeClient client = PakeClient.start("login-time-token");
            client.finish(server.salt(), server.serverShare());
            long t2 = System.nanoTime();
            server.prepare();
            long t3 = System.nanoTime();
            server.agree(client.clientShare());
            long t4 = System.nanoTime();
            if (i >= 0) {
                t[0][i] = t1 - t0;
                t[1][i] = t2 - t1;
                t[2][i] = t3 - t2;
                t[3][i] = t4 - t3;
            }
        }
        System.out.printf("SPAKE2+ steps, median of %d: server Y %.2f ms, client x·P, X, Z, V %.2f ms,"
                + " server V (ahead) %.2f ms, server Z %.2f ms%n", runs, percentile(t[0], 50), percentile(t[1], 50),
                percentile(t[2], 50), percentile(t[3], 50));
    }

    /** Nanoseconds from start to the first login of a client with {@code auth.pake = pake}. */
    private static long login(TunnelServer server, String pake) throws Exception {
        ClientConfig config = new ClientConfig();
        config.serverAddr = "127.0.0.1";
        config.serverPort = server.port();
        config.auth.token = "login-time-token";
        config.auth.pake = pake;
        config.loginFailExit = true;
        config.transport.drainTimeout = 0;
        long start = System.nanoTime();
        TunnelClient client = TunnelClient.start(config);
        try {
            client.firstLogin().get(10, TimeUnit.SECONDS);
            return System.nanoTime() - start;
        } finally {
            client.close();
        }
    }

    private static double percentile(long[] nanos, int p) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)] / 1e6;
    }
}
