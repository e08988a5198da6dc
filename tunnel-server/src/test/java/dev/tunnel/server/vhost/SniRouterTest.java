package dev.tunnel.server.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.testing.Fuzz;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class SniRouterTest {
    private final VhostHarness vhost = new VhostHarness();

    @AfterEach
    void close() {
        vhost.close();
    }

    /** The first flight of a real TLS client: a ClientHello naming {@code serverName} (none when null). */
    static byte[] clientHello(String serverName) throws Exception {
        SslContext client = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .trustManager(InsecureTrustManagerFactory.INSTANCE).build();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast(serverName == null ? client.newHandler(ch.alloc())
                : client.newHandler(ch.alloc(), serverName, 443));
        ByteBuf out = Unpooled.buffer();
        Object m;
        while ((m = ch.readOutbound()) != null) {
            out.writeBytes((ByteBuf) m);
            ((ByteBuf) m).release();
        }
        ch.finishAndReleaseAll();
        byte[] bytes = ByteBufUtil.getBytes(out);
        out.release();
        return bytes;
    }

    private void https(String domain, String name, int proxyId) {
        vhost.httpsRoutes.add(domain, "", "", name, vhost.target(name, proxyId));
    }

    private static String latin1(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    @Test
    void aClientHelloIsRoutedByItsServerNameAndRelayedUntouched() throws Exception {
        https("app.example.com", "web", 5);
        byte[] hello = clientHello("app.example.com");
        EmbeddedChannel ch = vhost.newTlsConnection();
        vhost.send(ch, latin1(hello));
        assertThat(vhost.apps).hasSize(1);
        assertThat(vhost.apps.get(0).proxyId).isEqualTo(5);
        vhost.send(ch, "after");
        assertThat(vhost.apps.get(0).received.toString()).isEqualTo(latin1(hello) + "after");
        vhost.apps.get(0).reply("server flight");
        assertThat(VhostHarness.received(ch)).isEqualTo("server flight");
    }

    @Test
    void aClientHelloInOneByteSegmentsIsStillRouted() throws Exception {
        https("*.example.com", "wild", 6);
        byte[] hello = clientHello("deep.app.example.com");
        EmbeddedChannel ch = vhost.newTlsConnection();
        for (byte b : hello) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        vhost.shuttle();
        assertThat(vhost.apps).hasSize(1);
        assertThat(vhost.apps.get(0).received.toString()).isEqualTo(latin1(hello));
    }

    @Test
    void aClientHelloSplitOverTinyTlsRecordsIsStillRouted() throws Exception {
        https("app.example.com", "web", 5);
        byte[] hello = clientHello("app.example.com");
        // re-frame the handshake message into records of 7 bytes each, as a hostile or odd client may
        int length = ((hello[3] & 0xff) << 8) | (hello[4] & 0xff);
        ByteBuf records = Unpooled.buffer();
        for (int off = 0; off < length; off += 7) {
            int n = Math.min(7, length - off);
            records.writeByte(22).writeByte(hello[1]).writeByte(hello[2]).writeShort(n).writeBytes(hello, 5 + off, n);
        }
        byte[] framed = ByteBufUtil.getBytes(records);
        records.release();
        EmbeddedChannel ch = vhost.newTlsConnection();
        vhost.send(ch, latin1(framed));
        assertThat(vhost.apps).hasSize(1);
        assertThat(vhost.apps.get(0).received.toString()).isEqualTo(latin1(framed));
    }

    @Test
    void noSniAnUnknownNameOrPlainTextIsClosed() throws Exception {
        https("app.example.com", "web", 5);
        EmbeddedChannel noSni = vhost.newTlsConnection();
        vhost.send(noSni, latin1(clientHello(null)));
        EmbeddedChannel unknown = vhost.newTlsConnection();
        vhost.send(unknown, latin1(clientHello("other.example.org")));
        EmbeddedChannel plain = vhost.newTlsConnection();
        vhost.send(plain, "GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n");
        assertThat(noSni.isActive()).isFalse();
        assertThat(unknown.isActive()).isFalse();
        assertThat(plain.isActive()).isFalse();
        assertThat(vhost.apps).isEmpty();
        assertThat(vhost.settings.counters().tlsUnrouted.get()).isEqualTo(3);
    }

    @Test
    void aClientHelloThatNeverCompletesTimesOut() throws Exception {
        https("app.example.com", "web", 5);
        byte[] hello = clientHello("app.example.com");
        EmbeddedChannel ch = vhost.newTlsConnection();
        vhost.send(ch, latin1(hello).substring(0, 20));
        ch.advanceTimeBy(vhost.settings.headTimeoutSeconds() + 1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isActive()).isFalse();
    }

    @Test
    @Timeout(180) // a thousand cases on a shared 2-core machine
    void fuzzedClientHellosAreRoutedOrClosedNeverLeaked() throws Exception {
        https("app.example.com", "web", 5);
        byte[] hello = clientHello("app.example.com");
        Fuzz.run("sni", rnd -> {
            byte[] input = hello.clone();
            int mutations = Fuzz.between(rnd, 1, 8);
            for (int i = 0; i < mutations; i++) {
                input[rnd.nextInt(input.length)] = (byte) rnd.nextInt(256);
            }
            int cut = rnd.nextInt(4) == 0 ? rnd.nextInt(input.length) : input.length;
            EmbeddedChannel ch = vhost.newTlsConnection();
            int off = 0;
            while (off < cut && ch.isActive()) {
                int n = Math.min(cut - off, Fuzz.between(rnd, 1, 300));
                ch.writeInbound(Unpooled.wrappedBuffer(input, off, n));
                off += n;
            }
            vhost.shuttle();
            ch.finishAndReleaseAll();
            vhost.publicChannels.remove(ch);
        });
        vhost.shuttle();
    }
}
