package dev.tunnel.client.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** status/reload/stop when the admin API cannot help: the message says what to check. */
@Timeout(30)
class AdminCommandsTest {
    @TempDir
    Path dir;

    private record Run(int exit, String err) {
    }

    private Run run(Object command, Path config) {
        PrintStream old = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int exit = new CommandLine(command).execute("-c", config.toString());
            return new Run(exit, err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(old);
        }
    }

    private Path config(int port) throws Exception {
        Path file = dir.resolve("client.toml");
        Files.writeString(file, "serverAddr = \"127.0.0.1\"\nauth.token = \"t\"\nwebServer.addr = \"127.0.0.1\"\n"
                + "webServer.port = " + port + "\nwebServer.user = \"admin\"\nwebServer.password = \"guess\"\n");
        return file;
    }

    @Test
    void noClientListeningNamesTheKeysAndTheFileToCheck() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        Path file = config(closed);
        Run run = run(new AdminCommands.Status(), file);
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err()).contains("cannot reach the client's admin API at http://127.0.0.1:" + closed)
                .contains("connection refused").contains("is tunnel-client running with " + file)
                .contains("webServer.addr and webServer.port");
    }

    @Test
    void wrongCredentialsNameTheUserAndPasswordKeys() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"tunnel\"");
            exchange.sendResponseHeaders(401, -1);
            exchange.close();
        });
        server.start();
        try {
            Path file = config(server.getAddress().getPort());
            Run run = run(new AdminCommands.Reload(), file);
            assertThat(run.exit()).isEqualTo(1);
            assertThat(run.err()).contains("reload failed: HTTP 401")
                    .contains("webServer.user and webServer.password in " + file + " are not the running client's");
        } finally {
            server.stop(0);
        }
    }
}
