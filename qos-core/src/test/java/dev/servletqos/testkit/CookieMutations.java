package dev.servletqos.testkit;

import java.util.SplittableRandom;

/**
 * The mutations of issue 11's cookie fuzzers ({@code CookieFuzzTest} through the engine, and
 * {@link AdapterBehaviourSuite}'s over real HTTP): from a seed value, bit flips, truncation, oversized values,
 * non-ASCII characters, quotes, duplicates (joined as browsers and proxies join them, also under the other
 * cookie's name), a changed or swapped segment, junk, empty. Each call returns a value that differs from its seed.
 */
public final class CookieMutations {

    /** The longest cookie value the engine parses ({@code SignedToken.MAX_LENGTH}): oversized values straddle it. */
    public static final int PARSER_LIMIT = 512;
    private static final String B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    private final String tierName;
    private final String sessionName;

    /** Mutations that join duplicates under these cookie names too. */
    public CookieMutations(String tierName, String sessionName) {
        this.tierName = tierName;
        this.sessionName = sessionName;
    }

    /** A value that differs from {@code seed}. */
    public String mutate(SplittableRandom random, String seed) {
        String m;
        do {
            m = mutateOnce(random, seed);
            if (random.nextInt(4) == 0) {
                m = mutateOnce(random, m); // mutations compound
            }
        } while (m.equals(seed));
        return m;
    }

    private String mutateOnce(SplittableRandom random, String v) {
        int at = v.isEmpty() ? 0 : random.nextInt(v.length());
        switch (random.nextInt(12)) {
            case 0: { // one bit flipped, anywhere in the char (may leave ASCII)
                if (v.isEmpty()) {
                    return "x";
                }
                char[] c = v.toCharArray();
                c[at] ^= (char) (1 << random.nextInt(random.nextBoolean() ? 7 : 16));
                return new String(c);
            }
            case 1: // truncated
                return v.substring(0, at);
            case 2: // oversized: up to ten times the parser's limit
                return v + junk(random, B64, PARSER_LIMIT - v.length() + random.nextInt(4_500));
            case 3: // just at the limit, or one past it
                return (v + junk(random, B64, PARSER_LIMIT + 1)).substring(0, PARSER_LIMIT
                        + random.nextInt(2));
            case 4: // a non-ASCII character inserted or replacing one
                return v.substring(0, at) + (char) (0x80 + random.nextInt(0xff80))
                        + v.substring(Math.min(v.length(), at + random.nextInt(2)));
            case 5: // quoted, or a quote inside
                return random.nextBoolean() ? '"' + v + '"' : v.substring(0, at) + '"' + v.substring(at);
            case 6: { // duplicated, as browsers and proxies join them
                String[] joins = {"", ",", ", ", ";", "; " + tierName + "=", "; " + sessionName + "=", " "};
                return v + joins[random.nextInt(joins.length)] + v;
            }
            case 7: { // one segment replaced: class, id, times, version, signature
                String[] parts = v.split("\\.", -1);
                if (parts.length < 2) {
                    return v + ".";
                }
                int p = random.nextInt(parts.length);
                String[] values = {"basic", "premium", "PREMIUM", "v1", "v3", "0", "9999999999", "99999999999999999999",
                        "-1", "", "AAAA", junk(random, B64, 43)};
                parts[p] = values[random.nextInt(values.length)];
                return String.join(".", parts);
            }
            case 8: { // two segments swapped (issued and expires, class and id)
                String[] parts = v.split("\\.", -1);
                if (parts.length < 3) {
                    return v + "..";
                }
                int a = random.nextInt(parts.length);
                int b = random.nextInt(parts.length);
                String x = parts[a];
                parts[a] = parts[b];
                parts[b] = x;
                return String.join(".", parts) + (a == b ? "." : "");
            }
            case 9: // a character inserted, deleted or replaced by one of the alphabet or a separator
                return v.substring(0, at) + "ABz09-_.=;, \t".charAt(random.nextInt(13))
                        + v.substring(Math.min(v.length(), at + random.nextInt(2)));
            case 10: // junk of any length and alphabet, controls and surrogates included
                return junk(random, null, random.nextInt(600));
            default: // empty or blank
                return random.nextBoolean() ? "" : " ";
        }
    }

    /** {@code n} random characters from {@code alphabet}, or any char when it is null. */
    private static String junk(SplittableRandom random, String alphabet, int n) {
        StringBuilder b = new StringBuilder(Math.max(0, n));
        for (int i = 0; i < n; i++) {
            b.append(alphabet == null ? (char) random.nextInt(0x10000)
                    : alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }
}
