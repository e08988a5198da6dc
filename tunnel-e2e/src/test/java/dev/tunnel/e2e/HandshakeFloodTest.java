package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.server.TunnelServer;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A TLS handshake flood on bindPort from one address (127.0.0.2) is held to
 * {@code transport.handshakeRatePerIP}: the connections over it are reset before any TLS work,
 * with one log line for the burst, and a real client from another address (127.0.0.1) logs in
 * meanwhile.
 */
@Timeout(60)
class HandshakeFloodTest {
    private static final int FLOOD_THREADS = 4;
    private static final int MAX_ATTEMPTS_PER_THREAD = 50_000;
    private static final long FLOOD_MILLIS = 15_000;

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void aFloodFromOneAddressIsThrottledAndAClientFromAnotherLogsInMeanwhile() throws Exception {
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig()); // the default rates
        byte[] clientHello = clientHello(server.port());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger handshakes = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ExecutorService flood = Executors.newFixedThreadPool(FLOOD_THREADS);
        List<Future<?>> loops = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FLOOD_MILLIS);
        try {
            for (int t = 0; t < FLOOD_THREADS; t++) {
                loops.add(flood.submit(() -> {
                    for (int i = 0; i < MAX_ATTEMPTS_PER_THREAD && !stop.get() && System.nanoTime() - deadline < 0; i++) {
                        if (handshake(clientHello, server.port())) {
                            handshakes.incrementAndGet();
                        } else {
                            refused.incrementAndGet();
                        }
                    }
                }));
            }
            await("the flood is refused").atMost(Duration.ofSeconds(5)).until(() -> refused.get() > 0);

            ClientConfig config = TunnelExtension.clientConfig(server, true);
            TunnelClient client = tunnel.startClient(config);
            client.firstLogin().get(10, TimeUnit.SECONDS);
        } finally {
            stop.set(true);
            for (Future<?> loop : loops) {
                loop.get(10, TimeUnit.SECONDS);
            }
            flood.shutdownNow();
        }
        System.out.printf("handshake flood from 127.0.0.2: %d handshakes let through, %d connections refused%n",
                handshakes.get(), refused.get());
        assertThat(refused.get()).as("flood connections reset before TLS").isPositive();
        assertThat(handshakes.get()).as("flood handshakes let through").isPositive();
        await().atMost(Duration.ofSeconds(5)).until(() -> CapturedLogs.snapshot().stream().anyMatch(line ->
                line.contains("refused: /127.0.0.2 opens more than 50 connections a second"
                        + " (transport.handshakeRatePerIP")));
        assertThat(CapturedLogs.snapshot().stream().filter(line -> line.contains("transport.handshakeRatePerIP")))
                .as("refusals logged once per burst").hasSizeLessThan(5);
    }

    /**
     * Sends a ClientHello from 127.0.0.2 and waits for the server's first answer, for which it did
     * the handshake's expensive part (key exchange, signature); false when the server reset or
     * closed the connection first. Replaying one ClientHello keeps the flood cheap on this side.
     */
    private static boolean handshake(byte[] clientHello, int port) {
        try (Socket s = new Socket()) {
            s.setSoLinger(true, 0);
            s.bind(new InetSocketAddress("127.0.0.2", 0));
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            s.setSoTimeout(2000);
            s.getOutputStream().write(clientHello);
            return s.getInputStream().read() >= 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first flight of a TLS client (trusting any certificate): one ClientHello record. */
    private static byte[] clientHello(int port) throws Exception {
        SSLEngine engine = trustAll().createSSLEngine("127.0.0.1", port);
        engine.setUseClientMode(true);
        engine.beginHandshake();
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] hello = new byte[out.remaining()];
        out.get(hello);
        return hello;
    }

    private static SSLContext trustAll() throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, InsecureTrustManagerFactory.INSTANCE.getTrustManagers(), null);
        return context;
    }
}
