package dev.tunnel.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** TLS 1.3 resumption between the contexts {@link TlsContexts} builds, over real sockets on 127.0.0.1. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsSessionsTest {
    private static EventLoopGroup group;

    @BeforeAll
    static void startGroup() {
        assumeTrue(OpenSsl.isAvailable(), "netty-tcnative is not available on this platform");
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopGroup() {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void secondConnectionToTheSameServerResumesAndStillReportsTheServerCertificate() throws Exception {
        SslContext server = TlsContexts.server(TlsFiles.NONE, SslProvider.OPENSSL);
        SslContext client = TlsContexts.client(TlsFiles.NONE, false, SslProvider.OPENSSL);
        try (TlsEcho echo = TlsEcho.start(group, server)) {
            TlsEcho.Result first = echo.roundTrip(client, "127.0.0.1", false, "first");
            TlsEcho.Result[] later = new TlsEcho.Result[5];
            for (int i = 0; i < later.length; i++) {
                later[i] = echo.roundTrip(client, "127.0.0.1", false, "again " + i);
            }

            assertThat(first.resumed()).as("first connection").isFalse();
            for (TlsEcho.Result result : later) {
                assertThat(result.resumed()).as("a later connection").isTrue();
                assertThat(result.protocol()).isEqualTo("TLSv1.3");
                assertThat(result.peerCertificates()[0]).isEqualTo(first.peerCertificates()[0]);
            }
            assertThat(echo.serverSessions().full()).isEqualTo(1);
            assertThat(echo.serverSessions().resumed()).isEqualTo(later.length);
        }
    }

    @Test
    void aServerWithOtherTicketKeysMakesAFullHandshake() throws Exception {
        SslContext client = TlsContexts.client(TlsFiles.NONE, false, SslProvider.OPENSSL);
        try (TlsEcho one = TlsEcho.start(group, TlsContexts.server(TlsFiles.NONE, SslProvider.OPENSSL))) {
            one.roundTrip(client, "127.0.0.1", false, "to the first server");
        }
        // Another server process (a restart) on another port: no ticket of the first applies.
        try (TlsEcho other = TlsEcho.start(group, TlsContexts.server(TlsFiles.NONE, SslProvider.OPENSSL))) {
            TlsEcho.Result result = other.roundTrip(client, "127.0.0.1", false, "to the other");
            assertThat(result.resumed()).isFalse();
            assertThat(other.serverSessions().full()).isEqualTo(1);
        }
    }

    @Test
    void aClientExpectingToResumeOffersX25519AloneWhileAFullHandshakeUsesTheHybridGroup() throws Exception {
        try (TlsEcho echo = TlsEcho.start(group, TlsContexts.server(TlsFiles.NONE, SslProvider.OPENSSL))) {
            SslContext withTickets = TlsContexts.client(TlsFiles.NONE, false, SslProvider.OPENSSL);
            TlsEcho.Result login = echo.roundTrip(withTickets, "127.0.0.1", false, "login");
            TlsEcho.Result work = echo.roundTrip(withTickets, "127.0.0.1", false, "work", true);
            // a client without a ticket: X25519 alone then makes a full handshake, which the work
            // connection gives up (TlsSessions.needsDefaultGroups)
            TlsEcho.Result noTicket = echo.roundTrip(TlsContexts.client(TlsFiles.NONE, false, SslProvider.OPENSSL),
                    "127.0.0.1", false, "no ticket", true);

            assertThat(login.resumed()).isFalse();
            assertThat(login.group()).as("a full handshake with the default groups").isEqualTo("X25519MLKEM768");
            assertThat(work.resumed()).isTrue();
            assertThat(work.group()).isEqualTo("X25519");
            assertThat(work.peerCertificates()[0]).isEqualTo(login.peerCertificates()[0]);
            assertThat(noTicket.resumed()).isFalse();
            assertThat(noTicket.group()).isEqualTo("X25519");
        }
    }
}
