package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.protocol.Frame;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * OPEN and the first bytes in one frame, seen on the wire between a real server and client of
 * this release (both list {@code mux.openData}; plain TCP so a spy between them reads the
 * frames). A vhost request is routed before its stream opens, so its head always rides in the
 * OPEN of a stream opened for it (most of the requests reuse the app's idle connection); tcp connections' bytes do when they were read by the loop's next turn (a race with the
 * client's write, so only counted); an app that speaks first still gets its stream, its OPEN
 * alone a turn later.
 */
@Timeout(60)
class OpenFoldTest {
    private static final int CONNECTIONS = 20;

    @Test
    void firstBytesRideInTheOpenAndAnAppThatSpeaksFirstStillWorks() throws Exception {
        ServerConfig sc = new ServerConfig();
        sc.bindAddr = "127.0.0.1";
        sc.bindPort = 0;
        sc.auth.token = "fold";
        sc.vhostHTTPPort = FreePorts.one();
        try (EchoServer echo = new EchoServer();
             WebApp web = new WebApp("web");
             LocalApp banner = new LocalApp(socket -> {
                 OutputStream out = socket.getOutputStream();
                 out.write("220 ready\r\n".getBytes(StandardCharsets.US_ASCII));
                 out.flush();
                 InputStream in = socket.getInputStream();
                 int b;
                 while ((b = in.read()) >= 0) {
                     out.write(b);
                 }
             });
             TunnelServer server = TunnelServer.start(sc);
             FrameSpy spy = new FrameSpy(server.port())) {
            ClientConfig cc = new ClientConfig();
            cc.serverPort = spy.port();
            cc.auth.token = "fold";
            cc.transport.tls.enable = false;
            cc.proxies.add(proxy("echo", echo.port()));
            cc.proxies.add(proxy("banner", banner.port()));
            ProxyConfig site = proxy("site", web.port());
            site.type = "http";
            site.customDomains = java.util.List.of("fold.example.test");
            cc.proxies.add(site);
            try (TunnelClient client = TunnelClient.start(cc)) {
                client.firstLogin().get(10, TimeUnit.SECONDS);
                int echoPort = client.awaitRemotePort("echo", Duration.ofSeconds(10));
                int bannerPort = client.awaitRemotePort("banner", Duration.ofSeconds(10));
                for (int i = 0; i < CONNECTIONS; i++) {
                    try (Socket socket = new Socket("127.0.0.1", echoPort)) {
                        byte[] request = ("request " + i + "\n").getBytes(StandardCharsets.US_ASCII);
                        socket.getOutputStream().write(request);
                        byte[] answer = new byte[request.length];
                        new DataInputStream(socket.getInputStream()).readFully(answer);
                        assertThat(answer).isEqualTo(request);
                    }
                }
                System.out.printf("tcp: %d of %d OPEN frames carried the connection's first bytes%n",
                        spy.folded.get(), spy.opens.get());
                assertThat(spy.opens.get()).isEqualTo(CONNECTIONS);

                int opened = spy.opens.get();
                int folded = spy.folded.get();
                try (Socket socket = new Socket("127.0.0.1", bannerPort)) {
                    socket.setSoTimeout(10_000);
                    byte[] hello = new byte[11];
                    new DataInputStream(socket.getInputStream()).readFully(hello);
                    assertThat(new String(hello, StandardCharsets.US_ASCII)).isEqualTo("220 ready\r\n");
                }
                assertThat(spy.opens.get()).isEqualTo(opened + 1);
                assertThat(spy.folded.get()).as("the app speaks first: its OPEN leaves alone").isEqualTo(folded);

                client.awaitRemotePort("site", Duration.ofSeconds(10));
                for (int i = 0; i < CONNECTIONS; i++) {
                    try (Socket socket = new Socket("127.0.0.1", sc.vhostHTTPPort)) {
                        socket.setSoTimeout(10_000);
                        socket.getOutputStream().write(("GET /r" + i + " HTTP/1.1\r\nHost: fold.example.test\r\n"
                                + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                        String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                        assertThat(answer).startsWith("HTTP/1.1 200").contains("path=/r" + i);
                    }
                }
                // the vhost keeps the app's connection idle between visitors, so most requests
                // reuse a stream; every stream it did open carried the request head in its OPEN
                int vhostOpens = spy.opens.get() - opened - 1;
                assertThat(vhostOpens).as("streams opened for the vhost requests").isBetween(1, CONNECTIONS);
                assertThat(spy.folded.get() - folded).as("vhost requests: the head rides in every OPEN")
                        .isEqualTo(vhostOpens);
            }
        }
    }

    private static ProxyConfig proxy(String name, int localPort) {
        ProxyConfig proxy = new ProxyConfig();
        proxy.name = name;
        proxy.localPort = localPort;
        return proxy;
    }

    /**
     * A TCP relay between the client and the server that parses the server's frames (behind its
     * 6-byte preface) and counts OPEN frames, and those flagged as carrying data.
     */
    private static final class FrameSpy implements AutoCloseable {
        final AtomicInteger opens = new AtomicInteger();
        final AtomicInteger folded = new AtomicInteger();
        private final ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        private final int target;
        private volatile Socket toServer;
        private volatile Socket fromClient;

        FrameSpy(int target) throws IOException {
            this.target = target;
            Thread t = new Thread(this::run, "frame-spy");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        private void run() {
            try {
                fromClient = listener.accept();
                toServer = new Socket("127.0.0.1", target);
                fromClient.setTcpNoDelay(true);
                toServer.setTcpNoDelay(true);
                Thread up = new Thread(() -> copy(fromClient, toServer), "frame-spy-up");
                up.setDaemon(true);
                up.start();
                DataInputStream in = new DataInputStream(toServer.getInputStream());
                OutputStream out = fromClient.getOutputStream();
                byte[] preface = new byte[6];
                in.readFully(preface);
                out.write(preface);
                byte[] header = new byte[Frame.HEADER_LENGTH];
                while (true) {
                    in.readFully(header);
                    int length = (header[6] & 0xff) << 24 | (header[7] & 0xff) << 16 | (header[8] & 0xff) << 8
                            | header[9] & 0xff;
                    byte[] payload = new byte[length];
                    in.readFully(payload);
                    if (header[0] == Frame.TYPE_OPEN) {
                        opens.incrementAndGet();
                        if ((header[1] & Frame.FLAG_DATA) != 0) {
                            folded.incrementAndGet();
                        }
                    }
                    out.write(header);
                    out.write(payload);
                    out.flush();
                }
            } catch (IOException e) {
                // closed
            }
        }

        private static void copy(Socket from, Socket to) {
            try {
                from.getInputStream().transferTo(to.getOutputStream());
            } catch (IOException e) {
                // closed
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : new Socket[] {toServer, fromClient}) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }
}
