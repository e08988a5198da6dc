package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.Pong;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.testing.Fuzz;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Fuzzes the server's login state machine: after a preface (valid or not), random and mutated
 * control and stream frames, including well-formed logins with wrong proofs. Whatever arrives,
 * nothing escapes the pipeline, no buffer leaks, the connection ends closed (at once, or at the
 * login timeout) with exactly one WARN line, and a logged-in bystander on the same server
 * context is untouched.
 *
 * <p>Seeded random fuzzing: {@code -Dfuzz.tries} cases (1,000 in CI), base seed {@code -Dfuzz.seed}
 * (random and printed when unset); see {@link Fuzz} and docs/security.md.
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

    @BeforeAll
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

    @AfterAll
    static void tearDown() {
        tunnelLogger.detachAppender(COUNTER);
        tunnelLogger.setAdditive(previousAdditive);
        tunnelLogger.setLevel(previousLevel);
        bystander.finishAndReleaseAll();
    }

    @Test
    void anyInputEndsWithTheConnectionClosedAndOneLogLine() {
        Fuzz.run("ServerLoginFuzzTest.anyInputEndsWithTheConnectionClosedAndOneLogLine",
                rnd -> anyInputEndsWithTheConnectionClosedAndOneLogLine(input(rnd)));
    }

    private static void anyInputEndsWithTheConnectionClosedAndOneLogLine(byte[] input) {
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

    /**
     * A preface (8 in 10 valid, else 6 random bytes or up to 12), then up to 4 frames (6 in 7 an
     * encoded control message, else up to 40 random bytes), then up to 2 bytes overwritten.
     */
    private static byte[] input(SplittableRandom rnd) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int preface = rnd.nextInt(10);
        out.writeBytes(preface < 8 ? ServerLoginTest.preface()
                : preface == 8 ? Fuzz.bytesOfSize(rnd, 6) : Fuzz.bytes(rnd, 12));
        int frames = Fuzz.size(rnd, 4);
        for (int k = 0; k < frames; k++) {
            out.writeBytes(rnd.nextInt(7) < 6 ? ServerLoginHarness.encode(message(rnd)) : Fuzz.bytes(rnd, 40));
        }
        return Fuzz.flip(rnd, out.toByteArray(), 2);
    }

    /** Logins (a quarter of the time) with fresh-looking or random nonces and proofs, or any other message. */
    private static ControlMessage message(SplittableRandom rnd) {
        return switch (rnd.nextInt(8)) {
            case 0, 1 -> new Login("fuzz", string(rnd), "run", 0, nonce(rnd), nonce(rnd), rnd.nextBoolean(), 1,
                    Fuzz.anyInt(rnd), Fuzz.oneOf(rnd, "", "alice"),
                    Fuzz.oneOf(rnd, "", ServerLoginHarness.OWN.fingerprint()),
                    rnd.nextBoolean() ? Capabilities.BASE : Fuzz.strings(rnd, 4), Fuzz.options(rnd, 4));
            case 2 -> new NewProxy(Fuzz.anyInt(rnd), Fuzz.oneOf(rnd, "ssh", string(rnd)), Fuzz.oneOf(rnd, "tcp", string(rnd)),
                    rnd.nextBoolean() ? Options.of("remotePort", Fuzz.oneOf(rnd, "0", string(rnd),
                    Integer.toString(Fuzz.anyInt(rnd)))) : Fuzz.options(rnd, 6));
            case 3 -> new CloseProxy(Fuzz.anyInt(rnd), string(rnd));
            case 4 -> new Ping(Fuzz.anyLong(rnd));
            case 5 -> new Pong(Fuzz.anyLong(rnd));
            case 6 -> new Challenge(string(rnd));
            default -> new LoginResult(Fuzz.anyInt(rnd), string(rnd), string(rnd), string(rnd), Fuzz.anyInt(rnd),
                    string(rnd), Fuzz.strings(rnd, 4), Fuzz.options(rnd, 4));
        };
    }

    private static String nonce(SplittableRandom rnd) {
        return rnd.nextInt(4) < 3 ? LoginProof.newNonce() : string(rnd);
    }

    private static String string(SplittableRandom rnd) {
        return Fuzz.string(rnd, 12);
    }
}
