package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A proxy whose local app is not running: a public connection is closed promptly (EOF or
 * reset) instead of hanging, and the tunnel keeps serving other proxies.
 */
@Timeout(30)
class LocalAppDownTest {
    /** "Promptly": a read on the public socket must end within this, not hang. */
    private static final int PROMPT_MILLIS = 3_000;

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void publicConnectionIsClosedWhenTheLocalAppIsDown() throws Exception {
        int closedPort = FreePorts.one();
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder()
                .proxy("down", closedPort)
                .proxy("echo", echo.port())
                .start();
        int port = t.port("down");

        for (int i = 0; i < 3; i++) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(PROMPT_MILLIS);
                assertThat(writeThenReadUntilClosed(s)).as("attempt %d", i).isIn("EOF", "reset");
            }
        }

        try (Socket s = new Socket("127.0.0.1", t.port("echo"))) {
            s.getOutputStream().write("still works".getBytes());
            s.shutdownOutput();
            assertThat(new String(s.getInputStream().readAllBytes())).isEqualTo("still works");
        }
    }

    /**
     * "EOF" or "reset"; fails if the connection stays open for {@link #PROMPT_MILLIS}. The reset
     * may already hit the write: the tunnel can close the public connection before the request
     * is sent.
     */
    private static String writeThenReadUntilClosed(Socket s) throws IOException {
        try {
            s.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes());
            int n;
            byte[] buf = new byte[1024];
            while ((n = s.getInputStream().read(buf)) >= 0) {
                throw new AssertionError("unexpected " + n + " bytes from a proxy whose local app is down");
            }
            return "EOF";
        } catch (SocketTimeoutException e) {
            throw new AssertionError("public connection still open after " + PROMPT_MILLIS + " ms", e);
        } catch (SocketException e) {
            return "reset";
        }
    }
}
