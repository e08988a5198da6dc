package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
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

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(TunnelExtension.Mode.class)
    void publicConnectionIsClosedWhenTheLocalAppIsDown(TunnelExtension.Mode mode) throws Exception {
        int closedPort = FreePorts.one();
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode)
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
     * "EOF" or "reset" (the reset may already hit the request's write); fails if the connection
     * stays open for {@link #PROMPT_MILLIS}.
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
