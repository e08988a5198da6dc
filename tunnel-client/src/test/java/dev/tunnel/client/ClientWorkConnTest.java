package dev.tunnel.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.NewWorkConn;
import dev.tunnel.protocol.ControlMessage.StartWorkConn;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.ConnectionProof;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.testing.ControlWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's end of a work connection without TLS, on an EmbeddedChannel: with a nonce issued
 * ahead it proves itself in its first flight and drops a challenge sent anyway; without one it
 * waits for the challenge, as before.
 */
@Timeout(10)
class ClientWorkConnTest {
    private static final String TOKEN = "work-conn-token-7f1a";
    private static final String SESSION = "42";
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final List<Integer> started = new ArrayList<>();

    private final ClientWorkConn.Starter starter = new ClientWorkConn.Starter() {
        @Override
        public void start(Channel work, PipeRelay workEnd, int proxyId, String source) {
            started.add(proxyId);
        }

        @Override
        public void handshaken(SslHandler tls) {
        }

        @Override
        public void reopenWithDefaultGroups(Channel abandoned, String issuedNonce) {
        }
    };

    @AfterEach
    void release() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private EmbeddedChannel workConn(String issuedNonce) {
        ClientWorkConn.Settings settings = new ClientWorkConn.Settings(new InetSocketAddress("127.0.0.1", 7000), null,
                new ClientCredentials("", TOKEN, null), 1000, null, 0);
        EmbeddedChannel ch = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel c) {
                ClientWorkConn.addHandlers(c.pipeline(), settings, new SessionKey(SESSION, TOKEN), ChannelBinding.none(), starter, false,
                        issuedNonce);
            }
        });
        channels.add(ch);
        return ch;
    }

    /** What the client wrote: its preface (checked) and the control messages behind it. */
    private static List<ControlMessage> written(EmbeddedChannel ch, boolean expectPreface) {
        if (expectPreface) {
            ByteBuf first = ch.readOutbound();
            assertThat(first.readInt()).isEqualTo(Preface.MAGIC);
            first.skipBytes(Preface.LENGTH - 4);
            assertThat(first.isReadable()).as("the preface is a write of its own").isFalse();
            first.release();
        }
        return ControlWire.written(ch, false);
    }

    /** The server's bytes: its preface, then {@code messages}. */
    private static ByteBuf fromServer(boolean preface, ControlMessage... messages) {
        ByteBuf frames = ControlWire.encode(messages);
        return preface ? Unpooled.wrappedBuffer(Preface.encode(frames.alloc()), frames) : frames;
    }

    private static boolean provesFor(NewWorkConn work, String serverNonce) {
        return ConnectionProof.WORK_CONN.verify(TOKEN, "", SESSION, serverNonce, work.nonce(), ChannelBinding.none(),
                work.proof());
    }

    @Test
    void withAnIssuedNonceItProvesItselfBehindItsPrefaceWithoutWaiting() {
        String issued = LoginProof.newNonce();
        EmbeddedChannel ch = workConn(issued);
        List<ControlMessage> out = written(ch, true);
        assertThat(out).hasSize(1).first().isInstanceOf(NewWorkConn.class);
        NewWorkConn work = (NewWorkConn) out.get(0);
        assertThat(work.issuedNonce()).isEqualTo(issued);
        assertThat(work.sessionId()).isEqualTo(SESSION);
        assertThat(provesFor(work, issued)).isTrue();
    }

    @Test
    void aChallengeSentAnywayIsDroppedAndTheStartStillCounts() {
        EmbeddedChannel ch = workConn(LoginProof.newNonce());
        written(ch, true);
        ch.writeInbound(fromServer(true, new Challenge(LoginProof.newNonce())));
        assertThat(ch.isOpen()).isTrue();
        assertThat(written(ch, false)).as("no second answer").isEmpty();
        ch.writeInbound(fromServer(false, new StartWorkConn(3, "203.0.113.9:5000")));
        assertThat(started).containsExactly(3);
    }

    @Test
    void withoutAnIssuedNonceItWaitsForItsChallenge() {
        EmbeddedChannel ch = workConn(null);
        assertThat(written(ch, true)).as("the preface alone").isEmpty();
        String challenge = LoginProof.newNonce();
        ch.writeInbound(fromServer(true, new Challenge(challenge)));
        List<ControlMessage> out = written(ch, false);
        assertThat(out).hasSize(1).first().isInstanceOf(NewWorkConn.class);
        NewWorkConn work = (NewWorkConn) out.get(0);
        assertThat(work.answersIssuedNonce()).isFalse();
        assertThat(provesFor(work, challenge)).isTrue();
    }

    @Test
    void aStartBeforeTheAnswerIsRefused() {
        EmbeddedChannel ch = workConn(null);
        written(ch, true);
        ch.writeInbound(fromServer(true, new StartWorkConn(3, "203.0.113.9:5000")));
        assertThat(ch.isOpen()).isFalse();
        assertThat(started).isEmpty();
    }
}
