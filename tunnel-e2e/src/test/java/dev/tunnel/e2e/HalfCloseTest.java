package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.e2e.Payloads.Summary;
import dev.tunnel.e2e.TunnelExtension.Mode;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A half-close (shutdownOutput) on one end travels through the tunnel as EOF on the other end,
 * and the other direction keeps working until its own end closes. The payloads are larger than
 * a stream window, so the data after the FIN really waits for credit. Both modes: in pool mode
 * the FIN travels as a half-closed work connection.
 */
@Timeout(30)
class HalfCloseTest {
    private static final int ANSWER_BYTES = 3 * 1024 * 1024;

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void publicClientHalfClosesThenReceivesTheWholeAnswer(Mode mode) throws Exception {
        byte[] request = Payloads.random(1024 * 1024, 1);
        byte[] answer = Payloads.random(ANSWER_BYTES, 2);
        CompletableFuture<Summary> appReceived = new CompletableFuture<>();
        LocalApp app = tunnel.localApp(socket -> {
            try (socket) {
                // The app answers only once it has seen EOF: it needs the FIN to get here.
                appReceived.complete(Payloads.drain(socket.getInputStream()));
                socket.getOutputStream().write(answer);
            }
        });
        int port = tunnel.builder().mode(mode).proxy("app", app.port()).start().port("app");

        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write(request);
            s.shutdownOutput();
            assertThat(Payloads.drain(s.getInputStream())).isEqualTo(Payloads.summary(answer));
        }
        assertThat(appReceived.get(5, TimeUnit.SECONDS)).isEqualTo(Payloads.summary(request));
        assertThat(app.errors()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void localAppHalfClosesThenStillReceivesThePublicClientsData(Mode mode) throws Exception {
        byte[] greeting = Payloads.random(64 * 1024, 3);
        byte[] upload = Payloads.random(ANSWER_BYTES, 4);
        CompletableFuture<Summary> appReceived = new CompletableFuture<>();
        LocalApp app = tunnel.localApp(socket -> {
            try (socket) {
                socket.getOutputStream().write(greeting);
                socket.shutdownOutput();
                appReceived.complete(Payloads.drain(socket.getInputStream()));
            }
        });
        int port = tunnel.builder().mode(mode).proxy("app", app.port()).start().port("app");

        try (Socket s = new Socket("127.0.0.1", port)) {
            InputStream in = s.getInputStream();
            assertThat(Payloads.drain(in)).as("greeting, then EOF").isEqualTo(Payloads.summary(greeting));
            OutputStream out = s.getOutputStream();
            out.write(upload);
            s.shutdownOutput();
            assertThat(appReceived.get(10, TimeUnit.SECONDS)).isEqualTo(Payloads.summary(upload));
            assertThat(in.read()).as("still EOF after the upload").isEqualTo(-1);
        }
        assertThat(app.errors()).isEmpty();
    }
}
