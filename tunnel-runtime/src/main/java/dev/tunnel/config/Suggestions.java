package dev.tunnel.config;

import java.util.Collection;
import java.util.Locale;

/** Picks the valid key nearest to a misspelt one, by case-insensitive edit distance. */
public final class Suggestions {

    private Suggestions() {
    }

    /**
     * The candidate closest to {@code typo}, or null when none is close enough (at most 2 edits,
     * or a third of the word for long words).
     */
    public static String nearest(String typo, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String t = typo.toLowerCase(Locale.ROOT);
        for (String candidate : candidates) {
            int d = distance(t, candidate.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return bestDistance <= Math.max(2, typo.length() / 3) ? best : null;
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] tmp = prev;
            prev = cur;
            cur = tmp;
        }
        return prev[b.length()];
    }
}
