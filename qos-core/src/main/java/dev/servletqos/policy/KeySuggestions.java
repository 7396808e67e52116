package dev.servletqos.policy;

import java.util.List;
import java.util.Locale;

/**
 * The nearest valid key to a mistyped one, for the parser's "did you mean" messages. Stateless and thread-safe.
 */
final class KeySuggestions {

    private KeySuggestions() {
    }

    /**
     * The candidate closest to {@code key} when the match is obvious: the same key spelled with other case
     * or separators ({@code maxExecuting}), or at most a few typed characters off; else null.
     */
    static String nearest(String key, List<String> candidates) {
        String squashed = squash(key);
        for (String c : candidates) {
            if (squash(c).equals(squashed)) {
                return c;
            }
        }
        int allowed = Math.max(1, Math.min(3, key.length() / 4));
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(key, c);
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        return bestDistance <= allowed ? best : null;
    }

    private static String squash(String s) {
        return s.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "").replace(".", "");
    }

    /** Levenshtein distance: insertions, deletions and substitutions. */
    private static int distance(String a, String b) {
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
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

}
