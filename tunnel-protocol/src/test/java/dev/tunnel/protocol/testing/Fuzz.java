package dev.tunnel.protocol.testing;

import dev.tunnel.protocol.ControlCodec;
import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.Pong;
import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.OpenFrame;
import dev.tunnel.protocol.ResetFrame;
import dev.tunnel.protocol.WindowUpdateFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Seeded random fuzzing without a framework: {@link #run} loops {@code fuzz.tries} cases, each
 * with its own {@link SplittableRandom}, and the generators below build the inputs.
 *
 * <p>Case {@code i} is seeded with {@code base + i * GAMMA}, so case 0's seed is the base seed
 * ({@code -Dfuzz.seed}, random when unset). A failing case reports its seed; rerunning the test
 * with {@code -Dfuzz.seed=<that seed> -Dfuzz.tries=1} replays exactly that case.
 */
public final class Fuzz {
    /** Cases per property when {@code fuzz.tries} is not set (the build sets it). */
    public static final int DEFAULT_TRIES = 1000;
    private static final long GAMMA = 0x9E3779B97F4A7C15L;
    private static final int[] EDGE_INTS = {0, 1, -1, 2, 255, 256, 65535, 65536, Integer.MAX_VALUE, Integer.MIN_VALUE};
    private static final long[] EDGE_LONGS = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE};

    private Fuzz() {
    }

    /** {@code fuzz.tries}, or {@link #DEFAULT_TRIES}. */
    public static int tries() {
        String value = System.getProperty("fuzz.tries", "");
        return value.isBlank() ? DEFAULT_TRIES : Integer.parseInt(value.strip().replace("_", ""));
    }

    /** {@code fuzz.seed} (decimal, or hex with 0x), or a fresh random seed when unset or blank. */
    public static long baseSeed() {
        String value = System.getProperty("fuzz.seed", "").strip();
        if (value.isEmpty()) {
            return new SplittableRandom().nextLong();
        }
        if (value.startsWith("0x") || value.startsWith("0X")) {
            return Long.parseUnsignedLong(value.substring(2), 16);
        }
        return Long.parseLong(value);
    }

    private static boolean quiet() {
        return Boolean.parseBoolean(System.getProperty("fuzz.quiet", "true"));
    }

    /** The seed of case {@code i} of a run with base seed {@code base}. */
    public static long caseSeed(long base, long i) {
        return base + i * GAMMA;
    }

    /**
     * Runs {@code body} for {@link #tries()} cases. The base seed is always printed; with
     * {@code -Dfuzz.quiet=false} the count and time are printed at the end. The first failing
     * case stops the run with an {@link AssertionError} that names its seed and how to replay it.
     */
    public static void run(String property, Consumer<SplittableRandom> body) {
        int tries = tries();
        long base = baseSeed();
        System.out.printf("[fuzz] %s: %,d cases, seed 0x%016x%n", property, tries, base);
        long start = System.nanoTime();
        for (int i = 0; i < tries; i++) {
            long seed = caseSeed(base, i);
            try {
                body.accept(new SplittableRandom(seed));
            } catch (Throwable t) {
                throw new AssertionError(String.format(
                        "%s failed at case %,d of %,d, case seed 0x%016x (base seed 0x%016x); replay it with"
                                + " -Dfuzz.seed=0x%016x -Dfuzz.tries=1: %s",
                        property, i, tries, seed, base, seed, t), t);
            }
        }
        if (!quiet()) {
            System.out.printf("[fuzz] %s: %,d cases passed in %.1f s%n", property, tries,
                    (System.nanoTime() - start) / 1e9);
        }
    }

    // ---- primitives ----------------------------------------------------------------------

    /** Any int, with 0, ±1, byte/short boundaries and the extremes more often than chance. */
    public static int anyInt(SplittableRandom rnd) {
        return rnd.nextInt(8) == 0 ? EDGE_INTS[rnd.nextInt(EDGE_INTS.length)] : rnd.nextInt();
    }

    /** Any long, edges favoured like {@link #anyInt}. */
    public static long anyLong(SplittableRandom rnd) {
        return rnd.nextInt(8) == 0 ? EDGE_LONGS[rnd.nextInt(EDGE_LONGS.length)] : rnd.nextLong();
    }

    /** An int in {@code [min, max]} (inclusive), the bounds favoured. */
    public static int between(SplittableRandom rnd, int min, int max) {
        int pick = rnd.nextInt(10);
        if (pick == 0) {
            return min;
        }
        if (pick == 1) {
            return max;
        }
        return (int) (min + rnd.nextLong((long) max - min + 1));
    }

    /** A size in {@code [0, max]}, empty and full more often than chance. */
    public static int size(SplittableRandom rnd, int max) {
        return between(rnd, 0, max);
    }

    /** Random bytes, length in {@code [0, maxLength]}. */
    public static byte[] bytes(SplittableRandom rnd, int maxLength) {
        return bytesOfSize(rnd, size(rnd, maxLength));
    }

    public static byte[] bytesOfSize(SplittableRandom rnd, int length) {
        byte[] b = new byte[length];
        rnd.nextBytes(b);
        return b;
    }

    /** Picks one element. */
    @SafeVarargs
    public static <T> T oneOf(SplittableRandom rnd, T... choices) {
        return choices[rnd.nextInt(choices.length)];
    }

    /**
     * A well-formed string of at most {@code maxLength} chars: ASCII (control characters
     * included), other BMP characters and supplementary code points (surrogate pairs), never a
     * lone surrogate.
     */
    public static String string(SplittableRandom rnd, int maxLength) {
        int length = size(rnd, maxLength);
        StringBuilder sb = new StringBuilder(length);
        while (sb.length() < length) {
            int kind = rnd.nextInt(10);
            if (kind < 5) {
                sb.append((char) rnd.nextInt(0x80));
            } else if (kind < 8 || length - sb.length() < 2) {
                int c;
                do {
                    c = 0x80 + rnd.nextInt(0x10000 - 0x80);
                } while (Character.isSurrogate((char) c));
                sb.append((char) c);
            } else {
                sb.appendCodePoint(0x10000 + rnd.nextInt(Character.MAX_CODE_POINT + 1 - 0x10000));
            }
        }
        return sb.toString();
    }

    /**
     * Mostly-UTF-8 bytes: a string's encoding with malformed sequences spliced in (stray
     * continuation bytes, truncated multi-byte sequences, overlong forms, encoded surrogates,
     * bytes never valid in UTF-8).
     */
    public static byte[] utf8ish(SplittableRandom rnd, int maxChars) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(string(rnd, maxChars).getBytes(StandardCharsets.UTF_8));
        int broken = rnd.nextInt(4);
        for (int k = 0; k < broken; k++) {
            byte[] bad = switch (rnd.nextInt(6)) {
                case 0 -> new byte[] {(byte) (0x80 + rnd.nextInt(0x40))};
                case 1 -> new byte[] {(byte) (0xC2 + rnd.nextInt(0x1E))};
                case 2 -> new byte[] {(byte) 0xE2, (byte) 0x82};
                case 3 -> new byte[] {(byte) 0xC0, (byte) 0xAF};
                case 4 -> new byte[] {(byte) 0xED, (byte) (0xA0 + rnd.nextInt(0x20)), (byte) 0x80};
                default -> new byte[] {(byte) (0xF5 + rnd.nextInt(0x0B))};
            };
            byte[] current = out.toByteArray();
            int at = rnd.nextInt(current.length + 1);
            out.reset();
            out.write(current, 0, at);
            out.writeBytes(bad);
            out.write(current, at, current.length - at);
        }
        return out.toByteArray();
    }

    // ---- splits and mutations ------------------------------------------------------------

    /** Chunk sizes for feeding a stream: 1 to {@code maxCount} sizes, each in {@code [1, maxSize]}. */
    public static int[] chunks(SplittableRandom rnd, int maxCount, int maxSize) {
        int[] sizes = new int[between(rnd, 1, maxCount)];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = between(rnd, 1, maxSize);
        }
        return sizes;
    }

    /**
     * Up to {@code max} mutations, each a flip (a byte set to a random value), a cut (the stream
     * ends there) or an insertion of a random byte, at a random position.
     */
    public static byte[] mutate(SplittableRandom rnd, byte[] wire, int max) {
        byte[] out = wire;
        int count = size(rnd, max);
        for (int k = 0; k < count; k++) {
            int kind = rnd.nextInt(3);
            int position = anyInt(rnd);
            int value = rnd.nextInt(256);
            if (out.length == 0) {
                break;
            }
            int at = Math.floorMod(position, out.length);
            switch (kind) {
                case 0 -> out[at] = (byte) value;
                case 1 -> out = Arrays.copyOf(out, at);
                default -> {
                    byte[] longer = new byte[out.length + 1];
                    System.arraycopy(out, 0, longer, 0, at);
                    longer[at] = (byte) value;
                    System.arraycopy(out, at, longer, at + 1, out.length - at);
                    out = longer;
                }
            }
        }
        return out;
    }

    /** Up to {@code max} flips only: a byte at a random position set to a random value (in place). */
    public static byte[] flip(SplittableRandom rnd, byte[] bytes, int max) {
        int count = size(rnd, max);
        for (int k = 0; k < count; k++) {
            int position = anyInt(rnd);
            int value = rnd.nextInt(256);
            if (bytes.length > 0) {
                bytes[Math.floorMod(position, bytes.length)] = (byte) value;
            }
        }
        return bytes;
    }

    // ---- protocol values -----------------------------------------------------------------

    /**
     * Up to {@code max} frames of every kind: DATA (owning a fresh buffer the encoder will
     * release), OPEN, WINDOW_UPDATE, RESET and CONTROL, on streams 1 to 9.
     */
    public static List<Frame> frames(SplittableRandom rnd, int max) {
        int count = size(rnd, max);
        List<Frame> frames = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            int stream = between(rnd, 1, 9);
            frames.add(switch (rnd.nextInt(5)) {
                case 0 -> new DataFrame(stream, Unpooled.wrappedBuffer(bytes(rnd, 100)), rnd.nextBoolean());
                case 1 -> new OpenFrame(stream, anyInt(rnd), string(rnd, 24));
                case 2 -> new WindowUpdateFrame(stream, between(rnd, 1, Integer.MAX_VALUE));
                case 3 -> new ResetFrame(stream, anyInt(rnd));
                default -> new ControlFrame(controlMessage(rnd));
            });
        }
        return frames;
    }

    /** Any control message, every field random (strings up to 24 chars). */
    public static ControlMessage controlMessage(SplittableRandom rnd) {
        return switch (rnd.nextInt(8)) {
            case 0 -> new Login(string(rnd, 24), string(rnd, 24), string(rnd, 24), anyLong(rnd), string(rnd, 24),
                    string(rnd, 24), rnd.nextBoolean(), anyInt(rnd), anyInt(rnd), string(rnd, 24), string(rnd, 24),
                    strings(rnd, 6), options(rnd, 6));
            case 1 -> new LoginResult(anyInt(rnd), string(rnd, 24), string(rnd, 24), string(rnd, 24), anyInt(rnd),
                    string(rnd, 24), strings(rnd, 6), options(rnd, 6));
            case 2 -> new NewProxy(anyInt(rnd), string(rnd, 24), string(rnd, 24), options(rnd, 8));
            case 3 -> new NewProxyResult(anyInt(rnd), string(rnd, 24), anyInt(rnd), string(rnd, 24), options(rnd, 4));
            case 4 -> new CloseProxy(anyInt(rnd), string(rnd, 24));
            case 5 -> new Ping(anyLong(rnd));
            case 6 -> new Pong(anyLong(rnd));
            default -> new Challenge(string(rnd, 24));
        };
    }

    /** Up to {@code max} random strings (capability lists). */
    public static List<String> strings(SplittableRandom rnd, int max) {
        int count = size(rnd, max);
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(string(rnd, 24));
        }
        return out;
    }

    /**
     * Up to {@code max} options with distinct non-empty keys: frp-like names ({@code remotePort},
     * {@code customDomains[0]}, {@code headers.X}) or random text, with random values.
     */
    public static Options options(SplittableRandom rnd, int max) {
        int count = size(rnd, max);
        Options.Builder options = Options.builder();
        for (int i = 0; i < count; i++) {
            String key = oneOf(rnd, "remotePort", "customDomains[" + i + "]", "headers." + string(rnd, 8),
                    string(rnd, 24));
            if (!key.isEmpty() && !options.has(key)) {
                options.put(key, oneOf(rnd, Integer.toString(anyInt(rnd)), string(rnd, 24), "true"));
            }
        }
        return options.build();
    }

    /** {@link ControlCodec}'s encoding of {@code message}. */
    public static byte[] encode(ControlMessage message) {
        ByteBuf out = Unpooled.buffer();
        try {
            ControlCodec.encode(message, out);
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    /**
     * A control-message payload (what follows the frame header), often almost valid: random
     * bytes; a valid encoding, mutated; or a kind byte followed by random fields (u16-prefixed
     * strings with malformed UTF-8 and lengths that may lie, ints, longs, booleans).
     */
    public static byte[] controlPayload(SplittableRandom rnd, int maxRandom) {
        int shape = rnd.nextInt(4);
        if (shape < 2) {
            return bytes(rnd, maxRandom);
        }
        if (shape == 2) {
            return mutate(rnd, encode(controlMessage(rnd)), 4);
        }
        ByteBuf out = Unpooled.buffer();
        try {
            out.writeByte(between(rnd, 0, 9));
            int fields = size(rnd, 12);
            for (int k = 0; k < fields; k++) {
                switch (rnd.nextInt(4)) {
                    case 0 -> {
                        byte[] s = utf8ish(rnd, 24);
                        int length = rnd.nextInt(10) == 0 ? rnd.nextInt(0x10000) : s.length;
                        out.writeShort(length).writeBytes(s);
                    }
                    case 1 -> out.writeInt(anyInt(rnd));
                    case 2 -> out.writeLong(anyLong(rnd));
                    default -> out.writeByte(oneOf(rnd, 0, 1, rnd.nextInt(256)));
                }
            }
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }
}
