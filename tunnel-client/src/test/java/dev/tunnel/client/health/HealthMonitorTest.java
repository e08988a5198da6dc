package dev.tunnel.client.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.tunnel.client.config.HealthCheckConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A health check against a real local app that goes down and comes back: the verdict changes
 * once per transition, after maxFailed failures in a row, and a failing app is reported once.
 */
@Timeout(60)
class HealthMonitorTest {
    private static final long WAIT_SECONDS = 20;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final BlockingQueue<HealthMonitor.Change> changes = new LinkedBlockingQueue<>();
    private HealthMonitor monitor;

    @AfterEach
    void stop() {
        if (monitor != null) {
            monitor.stop();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private HealthMonitor start(HealthCheckConfig config, int port) {
        monitor = new HealthMonitor("app", config, new InetSocketAddress("127.0.0.1", port), group.next(),
                NioSocketChannel.class, changes::add);
        monitor.start();
        return monitor;
    }

    private static HealthCheckConfig config(String type, int maxFailed) {
        HealthCheckConfig c = new HealthCheckConfig();
        c.type = type;
        c.intervalSeconds = 1;
        c.timeoutSeconds = 2;
        c.maxFailed = maxFailed;
        return c;
    }

    private HealthMonitor.Change next() throws InterruptedException {
        HealthMonitor.Change change = changes.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(change).as("a change within " + WAIT_SECONDS + " s").isNotNull();
        return change;
    }

    @Test
    void tcpCheckWithdrawsAfterMaxFailedAndRestoresWhenTheAppComesBack() throws Exception {
        ServerSocket app = listen(0);
        int port = app.getLocalPort();
        start(config("tcp", 2), port);
        assertThat(next().healthy()).as("the app is up: healthy").isTrue();

        app.close();
        long down = System.nanoTime();
        HealthMonitor.Change failed = next();
        assertThat(failed.healthy()).isFalse();
        assertThat(failed.reason()).contains("cannot connect to 127.0.0.1:" + port);
        assertThat(System.nanoTime() - down).as("two failures in a row, one interval apart")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(900));
        assertThat(monitor.healthy()).isFalse();

        Thread.sleep(2500);
        assertThat(changes).as("a down app is reported once, not per check").isEmpty();

        try (ServerSocket back = listen(port)) {
            assertThat(back.getLocalPort()).isEqualTo(port);
            HealthMonitor.Change restored = next();
            assertThat(restored.healthy()).isTrue();
            assertThat(monitor.healthy()).isTrue();
        }
    }

    @Test
    void anAppDownAtStartIsReportedOnceAndRegisteredWhenItComesUp() throws Exception {
        int port;
        try (ServerSocket probe = listen(0)) {
            port = probe.getLocalPort();
        }
        start(config("tcp", 3), port);
        HealthMonitor.Change first = next();
        assertThat(first.healthy()).as("failing from the first check, not after maxFailed").isFalse();
        Thread.sleep(2500);
        assertThat(changes).isEmpty();
        try (ServerSocket up = listen(port)) {
            assertThat(up.getLocalPort()).isEqualTo(port);
            assertThat(next().healthy()).isTrue();
        }
    }

    @Test
    void httpCheckNeedsA2xxOnItsPathAndSendsItsHeaders() throws Exception {
        AtomicInteger status = new AtomicInteger(200);
        AtomicReference<String> seenHeader = new AtomicReference<>();
        AtomicReference<String> seenPath = new AtomicReference<>();
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        http.createContext("/", exchange -> {
            seenPath.set(exchange.getRequestURI().getPath());
            seenHeader.set(exchange.getRequestHeaders().getFirst("x-from-where"));
            exchange.sendResponseHeaders(status.get(), -1);
            exchange.close();
        });
        http.start();
        try {
            HealthCheckConfig c = config("http", 1);
            c.path = "status";
            HealthCheckConfig.Header header = new HealthCheckConfig.Header();
            header.name = "x-from-where";
            header.value = "frp";
            c.httpHeaders.add(header);
            start(c, http.getAddress().getPort());
            assertThat(next().healthy()).isTrue();
            assertThat(seenPath.get()).as("a path without its slash gets one, as frp").isEqualTo("/status");
            assertThat(seenHeader.get()).isEqualTo("frp");

            status.set(503);
            HealthMonitor.Change failed = next();
            assertThat(failed.healthy()).isFalse();
            assertThat(failed.reason()).contains("answered 503 (not 2xx)");

            status.set(204);
            assertThat(next().healthy()).isTrue();
        } finally {
            http.stop(0);
        }
    }

    @Test
    void anAppThatAcceptsButNeverAnswersFailsTheHttpCheckAtTheTimeout() throws Exception {
        try (ServerSocket silent = listen(0)) {
            HealthCheckConfig c = config("http", 1);
            c.path = "/";
            c.timeoutSeconds = 1;
            start(c, silent.getLocalPort());
            HealthMonitor.Change change = next();
            assertThat(change.healthy()).isFalse();
            assertThat(change.reason()).isEqualTo("no answer within 1 s");
        }
    }

    @Test
    void noChangeIsReportedAfterStop() throws Exception {
        try (ServerSocket app = listen(0)) {
            start(config("tcp", 1), app.getLocalPort());
            assertThat(next().healthy()).isTrue();
            monitor.stop();
        }
        Thread.sleep(2500);
        assertThat(changes).isEmpty();
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        return s;
    }
}
