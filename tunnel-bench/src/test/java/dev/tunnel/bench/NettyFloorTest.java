package dev.tunnel.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.tls.CertificateAuthority;
import dev.tunnel.tls.KeyType;
import dev.tunnel.tls.PemWriter;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The memory reference relays bytes both ways over TLS, and only to a server its CA vouches for. */
class NettyFloorTest {
    private static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);

    @Test
    @Timeout(30)
    void relaysThroughTlsToTheBackend(@TempDir Path dir) throws Exception {
        byte[] message = "hello through the floor".getBytes(StandardCharsets.US_ASCII);
        assertThat(sendThroughFloor(dir, "localhost", message)).isEqualTo(message);
    }

    @Test
    @Timeout(30)
    void refusesAServerNamedOtherwise(@TempDir Path dir) throws Exception {
        byte[] message = "hello".getBytes(StandardCharsets.US_ASCII);
        assertThat(sendThroughFloor(dir, "elsewhere.example", message)).isEmpty();
    }

    /** Sends {@code message} through both floor sides to an echo backend; what comes back before EOF. */
    private static byte[] sendThroughFloor(Path dir, String serverName, byte[] message) throws Exception {
        Path ca = writeCerts(dir, serverName);
        try (EchoServer echo = EchoServer.start(ANY, 1);
             NettyFloor home = NettyFloor.client(ANY, local(echo.port()), ca.toFile());
             NettyFloor pub = NettyFloor.server(ANY, local(home.port()),
                     dir.resolve("server.crt").toFile(), dir.resolve("server.key").toFile());
             Socket s = new Socket("127.0.0.1", pub.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(message);
            out.flush();
            return s.getInputStream().readNBytes(message.length);
        }
    }

    private static Path writeCerts(Path dir, String serverName) throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("floor test CA", KeyType.EC_P256);
        ca.write(dir.resolve("ca.crt"), dir.resolve("ca.key"));
        CertificateAuthority.write(ca.issueServer(List.of(serverName), KeyType.EC_P256),
                dir.resolve("server.crt"), dir.resolve("server.key"), PemWriter.KeyFormat.PKCS8);
        return dir.resolve("ca.crt");
    }

    private static InetSocketAddress local(int port) {
        return new InetSocketAddress("127.0.0.1", port);
    }
}
