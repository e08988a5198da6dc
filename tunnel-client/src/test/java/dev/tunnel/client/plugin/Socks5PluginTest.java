package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.PluginConfig;
import dev.tunnel.protocol.transport.Transports;
import io.netty.channel.EventLoopGroup;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The socks5 plugin over real sockets, byte by byte as RFC 1928 and 1929 put them. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class Socks5PluginTest {
    private static final long DEADLINE_MILLIS = 1500;
    private static EventLoopGroup group;
    private LocalPlugin plugin;
    private Targets echo;

    @BeforeAll
    static void startGroup() {
        group = Transports.newGroup(1, "socks5-test");
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void start() throws Exception {
        plugin = start("abc", "pa55");
        echo = Targets.echo();
    }

    private static LocalPlugin start(String user, String password) throws InterruptedException {
        PluginConfig config = new PluginConfig();
        config.type = "socks5";
        config.allowDestinations = java.util.List.of("127.0.0.1"); // the test targets listen on loopback
        config.username = user;
        config.password = password;
        return LocalPlugins.start(config, group, DEADLINE_MILLIS);
    }

    @AfterEach
    void stop() throws IOException {
        plugin.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(((LoopbackServer) plugin).localAddress(), 5000);
        s.setSoTimeout(10_000);
        return s;
    }

    private static byte[] read(Socket s, int n) throws IOException {
        byte[] b = new byte[n];
        new DataInputStream(s.getInputStream()).readFully(b);
        return b;
    }

    private static byte[] login(String user, String password) {
        byte[] u = user.getBytes(StandardCharsets.UTF_8);
        byte[] p = password.getBytes(StandardCharsets.UTF_8);
        byte[] msg = new byte[3 + u.length + p.length];
        msg[0] = 1;
        msg[1] = (byte) u.length;
        System.arraycopy(u, 0, msg, 2, u.length);
        msg[2 + u.length] = (byte) p.length;
        System.arraycopy(p, 0, msg, 3 + u.length, p.length);
        return msg;
    }

    /** A command for 127.0.0.1:port (address type IPv4). */
    private static byte[] command(int cmd, int port) {
        return new byte[] {5, (byte) cmd, 0, 1, 127, 0, 0, 1, (byte) (port >> 8), (byte) port};
    }

    /** Greets and logs in; returns the open socket, ready for a command. */
    private Socket loggedIn() throws IOException {
        Socket s = connect();
        OutputStream out = s.getOutputStream();
        out.write(new byte[] {5, 2, 0, 2});
        assertThat(read(s, 2)).containsExactly(5, 2);
        out.write(login("abc", "pa55"));
        assertThat(read(s, 2)).containsExactly(1, 0);
        return s;
    }

    @Test
    void connectRelaysBytesBothWaysIntact() throws Exception {
        try (Socket s = loggedIn()) {
            s.getOutputStream().write(command(1, echo.port()));
            byte[] reply = read(s, 10);
            assertThat(reply[0]).isEqualTo((byte) 5);
            assertThat(reply[1]).as("reply code").isEqualTo((byte) 0);
            Targets.assertEchoes(s, 2 * 1024 * 1024 + 3, 3);
        }
    }

    @Test
    void aDomainNameTargetIsResolved() throws Exception {
        try (Socket s = loggedIn()) {
            byte[] host = "localhost".getBytes(StandardCharsets.US_ASCII);
            byte[] cmd = new byte[7 + host.length];
            cmd[0] = 5;
            cmd[1] = 1;
            cmd[3] = 3;
            cmd[4] = (byte) host.length;
            System.arraycopy(host, 0, cmd, 5, host.length);
            cmd[5 + host.length] = (byte) (echo.port() >> 8);
            cmd[6 + host.length] = (byte) echo.port();
            s.getOutputStream().write(cmd);
            s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII)); // before the reply: held, not lost
            byte[] head = read(s, 4);
            assertThat(head[1]).as("reply code").isEqualTo((byte) 0);
            read(s, head[3] == 4 ? 18 : 6); // bound address and port
            s.shutdownOutput();
            assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("ping");
        }
    }

    @Test
    void wrongPasswordGetsFailureAndTheConnectionCloses() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(new byte[] {5, 1, 2});
            assertThat(read(s, 2)).containsExactly(5, 2);
            s.getOutputStream().write(login("abc", "pa56"));
            assertThat(read(s, 2)).containsExactly(1, 1);
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void aClientWithoutPasswordAuthIsRefusedWhenCredentialsAreSet() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(new byte[] {5, 1, 0});
            assertThat(read(s, 2)).containsExactly(5, 0xFF);
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void bindAndUdpAssociateGetCommandNotSupported() throws Exception {
        for (int cmd : new int[] {2, 3}) {
            try (Socket s = loggedIn()) {
                s.getOutputStream().write(command(cmd, echo.port()));
                byte[] reply = read(s, 10);
                assertThat(reply[1]).as("reply code for command " + cmd).isEqualTo((byte) 7);
                assertThat(s.getInputStream().read()).isEqualTo(-1);
            }
        }
    }

    @Test
    void aRefusedTargetGetsConnectionRefused() throws Exception {
        int closed;
        try (ServerSocket free = new ServerSocket(0)) {
            closed = free.getLocalPort();
        }
        try (Socket s = loggedIn()) {
            s.getOutputStream().write(command(1, closed));
            byte[] reply = read(s, 10);
            assertThat(reply[1]).as("reply code").isEqualTo((byte) 5);
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void socks4AndGarbageAreClosedWithoutAReply() throws Exception {
        for (byte[] junk : new byte[][] {{4, 1, 0, 80, 127, 0, 0, 1, 0}, "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII)}) {
            try (Socket s = connect()) {
                s.getOutputStream().write(junk);
                assertThat(s.getInputStream().read()).isEqualTo(-1);
            }
        }
    }

    @Test
    void aSilentClientIsClosedAtTheDeadline() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(new byte[] {5, 2});
            InputStream in = s.getInputStream();
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void withoutCredentialsNoAuthIsAccepted() throws Exception {
        plugin.close();
        plugin = start("", "");
        try (Socket s = connect()) {
            s.getOutputStream().write(new byte[] {5, 1, 0});
            assertThat(read(s, 2)).containsExactly(5, 0);
            s.getOutputStream().write(command(1, echo.port()));
            assertThat(read(s, 10)[1]).isEqualTo((byte) 0);
        }
    }
}
