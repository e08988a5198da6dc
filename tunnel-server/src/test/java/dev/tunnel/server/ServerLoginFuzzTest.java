package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.Pong;
import dev.tunnel.protocol.auth.LoginProof;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.slf4j.LoggerFactory;

/**
 * Fuzzes the server's login state machine: after a preface (valid or not), random and mutated
 * control and stream frames, including well-formed logins with wrong proofs. Whatever arrives,
 * nothing escapes the pipeline, no buffer leaks, the connection ends closed (at once, or at the
 * login timeout) with exactly one WARN line, and a logged-in bystander on the same server
 * context is untouched.
 */
class ServerLoginFuzzTest {
    private static final AtomicInteger WARNINGS = new AtomicInteger();
    private static final AppenderBase<ILoggingEvent> COUNTER = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            if (event.getLevel().isGreaterOrEqual(Level.WARN)) {
                WARNINGS.incrementAndGet();
            }
        }
    };
    private static Logger tunnelLogger;
    private static Level previousLevel;
    private static boolean previousAdditive;
    private static ServerLoginHarness harness;
    private static EmbeddedChannel bystander;

    @BeforeContainer
    static void setUp() {
        tunnelLogger = (Logger) LoggerFactory.getLogger("dev.tunnel");
        previousLevel = tunnelLogger.getLevel();
        previousAdditive = tunnelLogger.isAdditive();
        COUNTER.start();
        tunnelLogger.addAppender(COUNTER);
        tunnelLogger.setAdditive(false); // a million refused logins would flood the console
        tunnelLogger.setLevel(Level.WARN);
        harness = new ServerLoginHarness();
        bystander = harness.connection();
        String nonce = ServerLoginTest.challenge(bystander);
        ServerLoginHarness.send(bystander, ServerLoginHarness.encode(
                ServerLoginTest.login(ServerLoginHarness.TOKEN, nonce, ServerLoginHarness.OWN)));
        assertThat(ServerLoginTest.result(bystander).ok()).isTrue();
    }

    @AfterContainer
    static void tearDown() {
        tunnelLogger.detachAppender(COUNTER);
        tunnelLogger.setAdditive(previousAdditive);
        tunnelLogger.setLevel(previousLevel);
        bystander.finishAndReleaseAll();
    }

    @Property
    void anyInputEndsWithTheConnectionClosedAndOneLogLine(@ForAll("inputs") byte[] input) {
        WARNINGS.set(0);
        EmbeddedChannel ch = harness.connection();
        try {
            ServerLoginHarness.send(ch, input);
            if (ch.isOpen()) {
                ch.advanceTimeBy(11, TimeUnit.SECONDS);
                ch.runScheduledPendingTasks();
                ch.runPendingTasks();
            }
            assertThat(ch.isOpen()).as("connection closed").isFalse();
            assertThat(WARNINGS.get()).as("warnings logged").isEqualTo(1);
            assertThat(bystander.isOpen()).as("the other client's connection").isTrue();
        } finally {
            Object o;
            while ((o = ch.readOutbound()) != null) {
                ReferenceCountUtil.release(o);
            }
            ch.finishAndReleaseAll();
        }
    }

    @Provide
    Arbitrary<byte[]> inputs() {
        Arbitrary<byte[]> preface = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, Arbitraries.just(ServerLoginTest.preface())),
                net.jqwik.api.Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofSize(6)),
                net.jqwik.api.Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMaxSize(12)));
        Arbitrary<byte[]> frame = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, messages().map(ServerLoginHarness::encode)),
                net.jqwik.api.Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMaxSize(40)));
        Arbitrary<List<int[]>> flips = Combinators.combine(Arbitraries.integers(), Arbitraries.integers().between(0, 255))
                .as((at, v) -> new int[] {at, v}).list().ofMaxSize(2);
        return Combinators.combine(preface, frame.list().ofMaxSize(4), flips).as((p, frames, mutations) -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(p);
            frames.forEach(out::writeBytes);
            byte[] bytes = out.toByteArray();
            for (int[] m : mutations) {
                if (bytes.length > 0) {
                    bytes[Math.floorMod(m[0], bytes.length)] = (byte) m[1];
                }
            }
            return bytes;
        });
    }

    private static Arbitrary<ControlMessage> messages() {
        Arbitrary<String> s = Arbitraries.strings().ofMaxLength(12);
        Arbitrary<String> nonce = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.create(LoginProof::newNonce)), net.jqwik.api.Tuple.of(1, s));
        Arbitrary<Login> login = Combinators.combine(nonce, nonce, s, Arbitraries.of(true, false),
                Arbitraries.integers(), Arbitraries.of("", "alice"), Arbitraries.of("", ServerLoginHarness.OWN.fingerprint()))
                .as((n, proof, host, mux, window, user, cert) -> new Login("fuzz", host, "run", 0, n, proof, mux, 1,
                        window, user, cert));
        Arbitrary<Integer> i = Arbitraries.integers();
        return Arbitraries.oneOf(login, login,
                Combinators.combine(i, s, s, i).as(NewProxy::new),
                Combinators.combine(i, s).as(CloseProxy::new),
                Arbitraries.longs().map(Ping::new), Arbitraries.longs().map(Pong::new), s.map(Challenge::new),
                Combinators.combine(i, s, s, s, i, s).as(LoginResult::new));
    }
}
