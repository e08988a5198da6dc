package dev.tunnel.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A web server beyond loopback starts only with both credentials set: one empty credential is one
 * anybody can guess ({@code curl -u admin: .../api/config}). Refused before anything is bound.
 */
@Timeout(30)
class WebServerCredentialsTest {
    private EventLoopGroup group;

    @BeforeEach
    void startGroup() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterEach
    void stopGroup() {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private Throwable start(String addr, String user, String password) {
        Throwable thrown = catchThrowable(() -> WebServer.start(new WebSettings(addr, 0, user, password, null, null),
                new Routes().open("/healthz", r -> WebResponse.ok()), group, NioServerSocketChannel.class, "admin API")
                .close());
        return thrown;
    }

    @Test
    void aBusyPortIsNamedWithItsKeys() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Throwable thrown = catchThrowable(() -> WebServer.start(
                    new WebSettings("127.0.0.1", taken.getLocalPort(), "", "", null, null),
                    new Routes().open("/healthz", r -> WebResponse.ok()), group, NioServerSocketChannel.class, "admin API"));
            assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("failed to bind admin API on [127.0.0.1:"
                    + taken.getLocalPort() + "] (webServer.addr, webServer.port): address in use");
        }
    }

    @Test
    void anEmptyPasswordBeyondLoopbackIsRefusedNamingTheKeys() {
        assertThat(start("0.0.0.0", "admin", "")).isInstanceOf(IllegalStateException.class).hasMessage(
                "refusing to start admin API: webServer.addr \"0.0.0.0\" is not a loopback address, so webServer.user"
                        + " and webServer.password must be set (webServer.password is empty, and anyone who reaches it"
                        + " could use it)");
    }

    @Test
    void anEmptyUserOnTheIpv6WildcardIsRefused() {
        assertThat(start("::", "", "s3cret")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("\"::\" is not a loopback address").hasMessageContaining("webServer.user is empty");
    }

    @Test
    void noCredentialsAtAllBeyondLoopbackAreRefused() {
        assertThat(start("0.0.0.0", "", "")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("webServer.user and webServer.password must be set");
    }

    @Test
    void loopbackStartsWithAnyCredentials() {
        assertThat(start("127.0.0.1", "", "")).isNull();
        assertThat(start("127.0.0.1", "admin", "")).isNull();
        assertThat(start("::1", "", "")).isNull();
    }
}
