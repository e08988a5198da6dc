package dev.tunnel.server.vhost;

import dev.tunnel.protocol.testing.Fuzz;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Inputs for the differential tests of the plain-head scans against Netty's decoders: one to
 * three heads picked from a list near the edge of plain, a few bytes mutated, and the points a
 * test cuts the input at into reads.
 */
final class NearPlainInputs {
    private NearPlainInputs() {
    }

    /**
     * @param specials bytes that move a head across the edge (separators, line ends), one of
     *                 which replaces a byte in some mutations; others put a random byte or flip a
     *                 letter's case
     */
    static byte[] mutated(SplittableRandom rnd, String[] heads, String specials) {
        StringBuilder text = new StringBuilder();
        int count = Fuzz.between(rnd, 1, 3);
        for (int i = 0; i < count; i++) {
            text.append(heads[rnd.nextInt(heads.length)]);
        }
        byte[] input = text.toString().getBytes(StandardCharsets.ISO_8859_1);
        int mutations = Fuzz.between(rnd, 0, 3);
        for (int i = 0; i < mutations; i++) {
            byte b = switch (rnd.nextInt(4)) {
                case 0 -> (byte) rnd.nextInt(256);
                case 1 -> (byte) specials.charAt(rnd.nextInt(specials.length()));
                default -> (byte) (input[rnd.nextInt(input.length)] ^ 0x20); // flips case
            };
            input[rnd.nextInt(input.length)] = b;
        }
        return input;
    }

    /** Zero to three sorted points in {@code [0, length]} to cut an input at. */
    static int[] cuts(SplittableRandom rnd, int length) {
        int[] cuts = new int[Fuzz.between(rnd, 0, 3)];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = rnd.nextInt(length + 1);
        }
        Arrays.sort(cuts);
        return cuts;
    }
}
