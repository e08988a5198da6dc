package dev.tunnel.server.config;

import dev.tunnel.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** frps keys that were "unknown key": {@code version}, {@code transport.tls.serverName}, {@code auth.tokenSource}. */
@Timeout(20)
class ServerFrpKeysTest {

    @TempDir
    Path dir;

    @Test
    void versionAndTlsServerNameAreAcceptedAndTokenSourceFileIsRead() throws Exception {
        Files.writeString(dir.resolve("token"), "\ts3cret\n");
        Path file = Files.writeString(dir.resolve("frps.toml"), """
                version = "v1"
                transport.tls.serverName = "vps.example.org"
                auth.tokenSource.type = "file"
                auth.tokenSource.file.path = "token"
                """);
        assertThat(ServerConfig.load(file, dir).auth.token).isEqualTo("s3cret");
    }

    @Test
    void tokenSourceExecIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("frps.yaml"), """
                auth:
                  tokenSource:
                    type: exec
                    exec:
                      command: /bin/echo
                """);
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ServerConfig.load(file, dir));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).startsWith(file + ":3: auth.tokenSource.type: \"exec\" is not supported: running a program");
    }
}
