package dev.tunnel.e2e;

import static org.awaitility.Awaitility.await;

import dev.tunnel.bench.LinkEmulator;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.server.proxy.ServerProxyTypes;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts tunnel servers, clients and local apps for one test and closes them all after it, in
 * reverse order. Register it as a field: {@code @RegisterExtension final TunnelExtension tunnel
 * = new TunnelExtension();} then {@code tunnel.builder().tls(true).proxy("echo", port).start()}.
 *
 * <p>Quiet by default: the logs of the server and the client are captured ({@link CapturedLogs})
 * and printed only when the test fails, or when closing its resources fails.
 *
 * <p>Everything binds 127.0.0.1 on port 0 unless a test asks for a port.
 */
final class TunnelExtension implements BeforeEachCallback, AfterTestExecutionCallback, AfterEachCallback {
    static final String TOKEN = "e2e-token";
    static final Duration LOGIN_TIMEOUT = Duration.ofSeconds(10);

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    @Override
    public void beforeEach(ExtensionContext context) {
        CapturedLogs.clear();
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        context.getExecutionException()
                .filter(e -> !(e instanceof org.opentest4j.TestAbortedException)) // a skip (assumption) is no failure
                .ifPresent(e -> printLogs(context, "failed"));
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception failure = null;
        AutoCloseable resource;
        while ((resource = resources.pollLast()) != null) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            printLogs(context, "could not close its resources");
            throw failure;
        }
    }

    private static void printLogs(ExtensionContext context, String what) {
        StringBuilder out = new StringBuilder("---- logs of " + context.getDisplayName() + " (" + what + ") ----\n");
        CapturedLogs.snapshot().forEach(out::append);
        out.append("---- end of logs ----");
        System.err.println(out);
    }

    /** Closes {@code resource} after the test (before anything registered earlier). */
    <T extends AutoCloseable> T closeAfterTest(T resource) {
        resources.addLast(resource);
        return resource;
    }

    /** A server config for tests: 127.0.0.1, port 0, the test token. */
    static ServerConfig serverConfig() {
        ServerConfig config = new ServerConfig();
        config.bindAddr = "127.0.0.1";
        config.bindPort = 0;
        config.auth.token = TOKEN;
        config.transport.drainTimeout = 1;
        return config;
    }

    /** A client config pointing at {@code server}, with the test token and no proxies. */
    static ClientConfig clientConfig(TunnelServer server, boolean tls) {
        ClientConfig config = new ClientConfig();
        config.serverAddr = "127.0.0.1";
        config.serverPort = server.port();
        config.auth.token = TOKEN;
        config.loginFailExit = true;
        config.transport.tls.enable = tls;
        config.transport.drainTimeout = 1;
        return config;
    }

    static ProxyConfig proxyConfig(String name, int localPort, int remotePort) {
        ProxyConfig proxy = new ProxyConfig();
        proxy.name = name;
        proxy.localIP = "127.0.0.1";
        proxy.localPort = localPort;
        proxy.remotePort = remotePort;
        return proxy;
    }

    TunnelServer startServer(ServerConfig config) throws Exception {
        return closeAfterTest(TunnelServer.start(config));
    }

    /** Starts a server carrying the proxy types of {@code types}. */
    TunnelServer startServer(ServerConfig config, ServerProxyTypes types) throws Exception {
        return closeAfterTest(TunnelServer.start(config, types));
    }

    /** Starts a client; does not wait for its login (see {@link TunnelClient#firstLogin()}). */
    TunnelClient startClient(ClientConfig config) throws Exception {
        return closeAfterTest(TunnelClient.start(config));
    }

    /** Starts a client running the proxy types of {@code types}; does not wait for its login. */
    TunnelClient startClient(ClientConfig config, ClientProxyTypes types) throws Exception {
        return closeAfterTest(TunnelClient.start(config, types));
    }

    /**
     * A link emulator on 127.0.0.1 to 127.0.0.1:{@code targetPort}: {@code delayMillis} each way,
     * no bandwidth cap, one event loop; faults with {@link LinkEmulator#fault}.
     */
    static LinkEmulator link(int targetPort, long delayMillis) throws InterruptedException {
        return LinkEmulator.start(new InetSocketAddress("127.0.0.1", 0), new InetSocketAddress("127.0.0.1", targetPort),
                LinkEmulator.Settings.delay(delayMillis), 1);
    }

    /** A {@link #link} without delay, closed after the test. */
    LinkEmulator linkTo(int targetPort) throws InterruptedException {
        return closeAfterTest(link(targetPort, 0));
    }

    EchoServer echoServer() throws Exception {
        return closeAfterTest(new EchoServer());
    }

    LocalApp localApp(LocalApp.Handler handler) throws Exception {
        return closeAfterTest(new LocalApp(handler));
    }

    TunnelBuilder builder() {
        return new TunnelBuilder();
    }

    /** A server and a client that has logged in and heard back about every proxy. */
    record Tunnel(TunnelServer server, TunnelClient client) {
        /** The public port of proxy {@code name}; fails with the server's reason if it was refused. */
        int port(String name) throws Exception {
            return client.awaitRemotePort(name, LOGIN_TIMEOUT);
        }

        /** The server's reason for refusing proxy {@code name}, or "" if it was accepted. */
        String error(String name) {
            return client.proxy(name).orElseThrow().error();
        }
    }

    /** Builds one {@link Tunnel}. */
    final class TunnelBuilder {
        private boolean tls;
        private Mode mode = Mode.MUX;
        private TunnelServer server;
        private Consumer<ServerConfig> serverSettings = c -> { };
        private Consumer<ClientConfig> clientSettings = c -> { };
        private final List<ProxyConfig> proxies = new ArrayList<>();

        private TunnelBuilder() {
        }

        /** TLS between client and server (the server accepts both unless told to force it). */
        TunnelBuilder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /** Mux mode (one connection) or pool mode (a work connection per public connection), both sides. */
        TunnelBuilder mode(Mode mode) {
            this.mode = mode;
            return this;
        }

        /** Changes the server config before the server starts. */
        TunnelBuilder server(Consumer<ServerConfig> settings) {
            this.serverSettings = settings;
            return this;
        }

        /** Connects the client to an already running server instead of starting one. */
        TunnelBuilder existingServer(TunnelServer running) {
            this.server = running;
            return this;
        }

        TunnelBuilder client(Consumer<ClientConfig> settings) {
            this.clientSettings = settings;
            return this;
        }

        /** A proxy to 127.0.0.1:{@code localPort} on a public port the server picks. */
        TunnelBuilder proxy(String name, int localPort) {
            return proxy(name, localPort, 0);
        }

        TunnelBuilder proxy(String name, int localPort, int remotePort) {
            proxies.add(proxyConfig(name, localPort, remotePort));
            return this;
        }

        /** Starts what is missing, waits for the login and for the server's answer on every proxy. */
        Tunnel start() throws Exception {
            TunnelServer s = server;
            if (s == null) {
                ServerConfig config = serverConfig();
                mode.apply(config);
                serverSettings.accept(config);
                s = startServer(config);
            }
            ClientConfig config = clientConfig(s, tls);
            config.proxies.addAll(proxies);
            mode.apply(config);
            clientSettings.accept(config);
            TunnelClient client = startClient(config);
            client.firstLogin().get(LOGIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            await("answers to every proxy").atMost(LOGIN_TIMEOUT)
                    .until(() -> proxies.stream().allMatch(p -> client.proxy(p.name).isPresent()));
            return new Tunnel(s, client);
        }
    }

    /** The two transport modes; tests that must hold in both run once per mode. */
    enum Mode {
        MUX(true), POOL(false);

        final boolean tcpMux;

        Mode(boolean tcpMux) {
            this.tcpMux = tcpMux;
        }

        void apply(ServerConfig config) {
            config.transport.tcpMux = tcpMux;
        }

        void apply(ClientConfig config) {
            config.transport.tcpMux = tcpMux;
            if (!tcpMux) {
                config.transport.poolCount = 5;
            }
        }
    }
}
