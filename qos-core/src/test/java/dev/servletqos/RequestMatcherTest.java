package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeout;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestMatcherTest {

    /** A request with only the fields a test sets; header names are case-insensitive, as in HTTP. */
    private record Req(String method, String host, String path, String remoteAddress, Map<String, String> headers)
            implements RequestView {

        static Req address(String remoteAddress) {
            return new Req("GET", "example.com", "/", remoteAddress, Map.of());
        }

        static Req path(String path) {
            return new Req("GET", "example.com", path, "127.0.0.1", Map.of());
        }

        static Req host(String host) {
            return new Req("GET", host, "/", "127.0.0.1", Map.of());
        }

        static Req headers(Map<String, String> headers) {
            return new Req("GET", "example.com", "/", "127.0.0.1", headers);
        }

        @Override
        public String cookie(String name) {
            return null;
        }

        @Override
        public String header(String name) {
            for (Map.Entry<String, String> header : headers.entrySet()) {
                if (header.getKey().equalsIgnoreCase(name)) {
                    return header.getValue();
                }
            }
            return null;
        }
    }

    private static void assertMatches(RequestMatcher matcher, Req request) {
        assertTrue(matcher.matches(request), () -> matcher + " should match " + request);
    }

    private static void assertNoMatch(RequestMatcher matcher, Req request) {
        assertFalse(matcher.matches(request), () -> matcher + " should not match " + request);
    }

    private static IllegalArgumentException configError(Runnable build) {
        return assertThrows(IllegalArgumentException.class, build::run);
    }

    @Nested
    class IpRanges {

        private void assertIn(String range, String... addresses) {
            RequestMatcher matcher = RequestMatcher.ipRanges(List.of(range));
            for (String address : addresses) {
                assertMatches(matcher, Req.address(address));
            }
        }

        private void assertNotIn(String range, String... addresses) {
            RequestMatcher matcher = RequestMatcher.ipRanges(List.of(range));
            for (String address : addresses) {
                assertNoMatch(matcher, Req.address(address));
            }
        }

        @Test
        void ipv4Cidr() {
            assertIn("10.0.0.0/8", "10.0.0.0", "10.1.2.3", "10.255.255.255");
            assertNotIn("10.0.0.0/8", "9.255.255.255", "11.0.0.0", "110.0.0.1", "1.10.0.0");
            assertIn("192.168.1.128/25", "192.168.1.128", "192.168.1.255");
            assertNotIn("192.168.1.128/25", "192.168.1.127", "192.168.2.128");
        }

        @Test
        void singleIpv4AddressIsSlash32() {
            assertIn("192.168.1.7", "192.168.1.7");
            assertNotIn("192.168.1.7", "192.168.1.8", "192.168.1.70", "92.168.1.7");
            assertIn("192.168.1.7/32", "192.168.1.7");
            assertNotIn("192.168.1.7/32", "192.168.1.6");
        }

        @Test
        void hostBitsAfterThePrefixAreIgnored() {
            assertIn("192.168.1.7/24", "192.168.1.200", "192.168.1.0");
            assertNotIn("192.168.1.7/24", "192.168.2.7");
        }

        @Test
        void ipv4SlashZeroMatchesEveryIpv4ClientButNoIpv6One() {
            assertIn("0.0.0.0/0", "0.0.0.0", "1.2.3.4", "255.255.255.255", "::ffff:1.2.3.4");
            assertNotIn("0.0.0.0/0", "::1", "2001:db8::1", "::");
        }

        @Test
        void ipv6Cidr() {
            assertIn("2001:db8::/32", "2001:db8::", "2001:db8::1", "2001:DB8:ABCD::1",
                    "2001:0db8:ffff:ffff:ffff:ffff:ffff:ffff");
            assertNotIn("2001:db8::/32", "2001:db9::1", "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "::1",
                    "32.1.13.184");
        }

        @Test
        void ipv6PrefixesThatDoNotFallOnGroupOrHalfBoundaries() {
            assertIn("2001:db8::/33", "2001:db8:7fff:ffff::1");
            assertNotIn("2001:db8::/33", "2001:db8:8000::");
            assertIn("2001:db8:0:1::/64", "2001:db8:0:1:ffff:ffff:ffff:ffff", "2001:db8:0:1::");
            assertNotIn("2001:db8:0:1::/64", "2001:db8:0:2::", "2001:db8:0:0:ffff:ffff:ffff:ffff");
            assertIn("2001:db8::8000:0:0:0/65", "2001:db8::ffff:0:0:0", "2001:db8::8000:0:0:0");
            assertNotIn("2001:db8::8000:0:0:0/65", "2001:db8::7fff:ffff:ffff:ffff");
            assertIn("2001:db8::/127", "2001:db8::", "2001:db8::1");
            assertNotIn("2001:db8::/127", "2001:db8::2");
        }

        @Test
        void loopbackInEveryIpv6Spelling() {
            assertIn("::1", "::1", "0:0:0:0:0:0:0:1", "0000:0000:0000:0000:0000:0000:0000:0001", "[::1]",
                    "::0:1", "0::1");
            assertNotIn("::1", "::", "::2", "1::", "127.0.0.1", "::ffff:127.0.0.1");
            assertIn("[::1]", "::1");
            assertIn("[::1]/128", "::1");
        }

        @Test
        void ipv6Slash128AndSlash0() {
            assertIn("2001:db8::8:800:200c:417a/128", "2001:db8:0:0:8:800:200c:417a", "2001:DB8::8:800:200C:417A");
            assertNotIn("2001:db8::8:800:200c:417a/128", "2001:db8::8:800:200c:417b");
            assertIn("::/0", "::", "::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe80::1%eth0");
        }

        @Test
        void ipv6SlashZeroAlsoCoversIpv4ClientsThroughTheirMappedForm() {
            assertIn("::/0", "1.2.3.4", "0.0.0.0", "255.255.255.255");
        }

        @Test
        void unspecifiedAddressIsOnlyItself() {
            assertIn("::", "::", "0:0:0:0:0:0:0:0", "::0");
            assertNotIn("::", "::1", "0.0.0.0");
        }

        @Test
        void everyPlaceForTheDoubleColon() {
            assertIn("1:2:3:4:5:6:7:0", "1:2:3:4:5:6:7::");
            assertIn("0:1:2:3:4:5:6:7", "::1:2:3:4:5:6:7");
            assertIn("1:0:0:0:0:0:0:8", "1::8");
            assertIn("1:2:3:0:0:6:7:8", "1:2:3::6:7:8");
            assertIn("1:2:3:0:0:0:0:0", "1:2:3::");
            assertNotIn("1:2:3:0:0:6:7:8", "1:2:3::6:7:9", "1:2::6:7:8", "1:2:3:4::6:7:8");
        }

        @Test
        void zoneIdsAreIgnored() {
            assertIn("fe80::/10", "fe80::1%eth0", "[fe80::1%eth0]", "fe80::1%25", "febf::1");
            assertNotIn("fe80::/10", "fec0::1%eth0", "fe7f::1");
            assertIn("fe80::1%eth0", "fe80::1", "fe80::1%eth1");
        }

        @Test
        void ipv4RangeMatchesIpv4MappedIpv6Addresses() {
            assertIn("10.0.0.0/8", "::ffff:10.1.2.3", "::FFFF:10.1.2.3", "::ffff:a01:203", "[::ffff:10.1.2.3]",
                    "0:0:0:0:0:ffff:10.1.2.3", "0:0:0:0:0:ffff:0a01:0203");
            // Only ::ffff:0:0/96 is IPv4; the deprecated compatible form and NAT64 are other IPv6 addresses.
            assertNotIn("10.0.0.0/8", "::ffff:11.1.2.3", "::10.1.2.3", "64:ff9b::10.1.2.3", "1::ffff:10.1.2.3",
                    "::fffe:10.1.2.3");
        }

        @Test
        void ipv4MappedRangeMatchesPlainIpv4Addresses() {
            assertIn("::ffff:10.0.0.0/104", "10.1.2.3", "10.255.255.255", "::ffff:10.9.9.9");
            assertNotIn("::ffff:10.0.0.0/104", "11.0.0.0", "::10.1.2.3");
            assertIn("::ffff:192.168.1.7", "192.168.1.7");
            assertNotIn("::ffff:192.168.1.7", "192.168.1.8");
            assertIn("::ffff:0:0/96", "1.2.3.4", "255.255.255.255");
            assertNotIn("::ffff:0:0/96", "::1");
        }

        @Test
        void anyOfSeveralRanges() {
            RequestMatcher matcher = RequestMatcher.ipRanges(List.of("10.0.0.0/8", "192.168.0.0/16", "::1",
                    "2001:db8::/32"));
            for (String in : List.of("10.0.0.1", "192.168.44.1", "::1", "2001:db8::5", "::ffff:192.168.0.1")) {
                assertMatches(matcher, Req.address(in));
            }
            for (String out : List.of("172.16.0.1", "::2", "2001:db9::")) {
                assertNoMatch(matcher, Req.address(out));
            }
        }

        @Test
        void emptyListMatchesNothing() {
            RequestMatcher matcher = RequestMatcher.ipRanges(List.of());
            assertNoMatch(matcher, Req.address("10.0.0.1"));
            assertNoMatch(matcher, Req.address("::1"));
        }

        @ParameterizedTest
        @ValueSource(strings = {"", " ", "abc", "localhost", "example.com", "1.2.3", "1.2.3.4.5", "999.1.1.1",
            "256.0.0.0", "1.2.3.-4", "1..2.3", ".1.2.3", "1.2.3.", "01.2.3.4", "1.2.3.04", "1.2.3.0004",
            " 1.2.3.4", "1.2.3.4 ", "1.2.3.4/8", "0x7f.0.0.1", "\u0661.2.3.4", ":::", ":", "::1::", "1::2::3",
            ":1::", "1:", ":1", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8",
            "12345::1", "g::1", "::ffff:1.2.3", "::ffff:1.2.3.4.5", "::ffff:256.1.1.1", "1.2.3.4::",
            "::1.2.3.4:5", "1:2:3:4:5:6:7:1.2.3.4", "[::1", "::1]", "[]", "[1.2.3.4]", "[::1]:80",
            "1.2.3.4%eth0", "fe80::1%", "%eth0", "::1 ", "-1", "1.2.3.4\u0000"})
        void malformedRemoteAddressesDoNotMatchAndDoNotThrow(String address) {
            RequestMatcher everything = RequestMatcher.ipRanges(List.of("0.0.0.0/0", "::/0"));
            assertNoMatch(everything, Req.address(address));
        }

        @Test
        void nullRemoteAddressDoesNotMatch() {
            assertNoMatch(RequestMatcher.ipRanges(List.of("0.0.0.0/0", "::/0")), Req.address(null));
        }

        @Test
        void longestValidLiteralsParse() {
            assertIn("::/0", "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255",
                    "[0000:0000:0000:0000:0000:ffff:255.255.255.255%some-long-zone-name]");
            assertIn("0.0.0.0/0", "0000:0000:0000:0000:0000:ffff:255.255.255.255");
        }

        @Test
        void prefixLengthOutOfRangeSaysWhy() {
            assertEquals("\"10.0.0.0/33\": prefix length must be 0..32",
                    configError(() -> RequestMatcher.ipRanges(List.of("10.0.0.0/33"))).getMessage());
            assertEquals("\"2001:db8::/129\": prefix length must be 0..128",
                    configError(() -> RequestMatcher.ipRanges(List.of("2001:db8::/129"))).getMessage());
        }

        @ParameterizedTest
        @ValueSource(strings = {"10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/x", "10.0.0.0/8/8",
            "10.0.0.0/ 8", "10.0.0.0/0008", "10.0.0.0/99999999999"})
        void badPrefixLengthsAreRefused(String range) {
            IllegalArgumentException e = configError(() -> RequestMatcher.ipRanges(List.of(range)));
            assertEquals('"' + range + "\": prefix length must be 0..32", e.getMessage());
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "abc", "localhost", "10.0.0", "10.0.0.256", "010.0.0.0/8", " 10.0.0.0/8",
            "/8", ":::/0", "2001:db8:::/32", "[10.0.0.0]/8", "1.2.3.4%eth0"})
        void addressesThatAreNotLiteralsAreRefused(String range) {
            IllegalArgumentException e = configError(() -> RequestMatcher.ipRanges(List.of("::1", range)));
            assertTrue(e.getMessage().startsWith('"' + range + "\": not an IPv4 or IPv6 address"), e.getMessage());
        }

        @Test
        void shortPrefixOnAnIpv4MappedAddressIsRefused() {
            // Masked, this would be ::/8: every IPv4 client and ::1 too, certainly not what was meant.
            IllegalArgumentException e = configError(() -> RequestMatcher.ipRanges(List.of("::ffff:10.0.0.0/8")));
            assertTrue(e.getMessage().startsWith("\"::ffff:10.0.0.0/8\": an IPv4-mapped range needs a prefix length"
                    + " of 96..128"), e.getMessage());
        }

        @Test
        void nullRangeIsRefused() {
            IllegalArgumentException e = configError(() -> RequestMatcher.ipRanges(Arrays.asList("::1", null)));
            assertEquals("IP range must not be null", e.getMessage());
        }

        @Test
        void matchingAllocatesNothing() {
            RequestMatcher matcher = RequestMatcher.ipRanges(List.of("10.0.0.0/8", "2001:db8::/32", "::1"));
            List<Req> requests = List.of(Req.address("10.1.2.3"), Req.address("172.16.0.1"),
                    Req.address("2001:db8::8:800:200c:417a"), Req.address("::ffff:10.1.2.3"),
                    Req.address("[fe80::1%eth0]"), Req.address("not an address"));
            assertAllocatesNothing(matcher, requests);
        }
    }

    @Nested
    class Paths {

        private void assertPathIn(String pattern, String... paths) {
            RequestMatcher matcher = RequestMatcher.paths(List.of(pattern));
            for (String path : paths) {
                assertMatches(matcher, Req.path(path));
            }
        }

        private void assertPathNotIn(String pattern, String... paths) {
            RequestMatcher matcher = RequestMatcher.paths(List.of(pattern));
            for (String path : paths) {
                assertNoMatch(matcher, Req.path(path));
            }
        }

        @Test
        void prefixEndingInSlash() {
            assertPathIn("/api/", "/api/", "/api/x", "/api/v1/orders");
            assertPathNotIn("/api/", "/api", "/apix", "/API/x", "/", "/v1/api/x");
        }

        @Test
        void prefixWithoutSlashMatchesAtASegmentBoundary() {
            assertPathIn("/api", "/api", "/api/", "/api/x");
            assertPathNotIn("/api", "/apix", "/ap", "/api.json", "/v1/api");
        }

        @Test
        void rootMatchesEveryPath() {
            assertPathIn("/", "/", "/anything", "/a/b/c");
        }

        @Test
        void starMatchesWithinOneSegment() {
            assertPathIn("/shop/*/checkout", "/shop/42/checkout", "/shop/cart-7/checkout");
            assertPathNotIn("/shop/*/checkout", "/shop/checkout", "/shop/a/b/checkout", "/shop/42/checkout/confirm",
                    "/shop/42/checkoutx", "/shop42/checkout");
            assertPathIn("/img/*.png", "/img/a.png", "/img/.png");
            assertPathNotIn("/img/*.png", "/img/sub/a.png", "/img/a.png.txt", "/img/a.jpg");
            assertPathIn("/v*/users", "/v1/users", "/v/users", "/v2beta/users");
            assertPathNotIn("/v*/users", "/x1/users", "/v1/x/users");
        }

        @Test
        void trailingDoubleStarMatchesTheDirectoryAndEverythingBelow() {
            assertPathIn("/premium/**", "/premium", "/premium/", "/premium/a", "/premium/a/b/c");
            assertPathNotIn("/premium/**", "/premiumx", "/premiu", "/other/premium/a");
            assertPathIn("/**", "/", "/a", "/a/b/c");
        }

        @Test
        void doubleStarInTheMiddleMatchesZeroOrMoreSegments() {
            assertPathIn("/a/**/b", "/a/b", "/a/x/b", "/a/x/y/b", "/a/b/b");
            assertPathNotIn("/a/**/b", "/a", "/b", "/ab", "/a/xb", "/a/b/c", "/x/a/b");
            assertPathIn("/a/**/b/**/c", "/a/b/c", "/a/x/b/y/z/c", "/a/b/b/c", "/a/c/b/c");
            assertPathNotIn("/a/**/b/**/c", "/a/c/b", "/a/b", "/a/bc");
            // The leftmost place for a block is not always where the first segment matches.
            assertPathIn("/**/a/b/**", "/a/a/b", "/x/a/a/b/y");
            // One path segment cannot serve both ends of the pattern.
            assertPathNotIn("/a/**/a", "/a");
            assertPathIn("/a/**/a", "/a/a");
            assertPathIn("/**/x/**/x/**", "/x/x");
            assertPathNotIn("/**/x/**/x/**", "/x", "/y/x/y");
        }

        @Test
        void doubleStarInsideASegmentIsAStar() {
            assertPathIn("/foo**", "/foo", "/foobar");
            assertPathNotIn("/foo**", "/foo/bar");
        }

        @Test
        void leadingStarMatchesTheLastSegmentsAtAnyDepth() {
            assertPathIn("*.jpg", "/a.jpg", "/img/x/b.jpg", "/.jpg");
            assertPathNotIn("*.jpg", "/a.jpg/x", "/a.jpeg", "/jpg", "/a.JPG");
            assertPathIn("*/checkout", "/shop/42/checkout", "/x/checkout");
            assertPathNotIn("*/checkout", "/checkout/x");
            assertPathIn("**/report", "/report", "/a/b/report");
        }

        @Test
        void globsAreAnchoredAtBothEnds() {
            assertPathNotIn("/a/*", "/a/b/c", "/x/a/b");
            assertPathIn("/a/*", "/a/b", "/a/");
        }

        @Test
        void anyOfSeveralPatterns() {
            RequestMatcher matcher = RequestMatcher.paths(List.of("/api/", "/premium/**", "*.jpg"));
            for (String in : List.of("/api/x", "/premium", "/static/logo.jpg")) {
                assertMatches(matcher, Req.path(in));
            }
            for (String out : List.of("/api", "/static/logo.png", "/")) {
                assertNoMatch(matcher, Req.path(out));
            }
            assertNoMatch(RequestMatcher.paths(List.of()), Req.path("/"));
        }

        @Test
        void nullOrOddRequestPathsDoNotMatch() {
            RequestMatcher matcher = RequestMatcher.paths(List.of("/", "/**", "*", "/a"));
            assertNoMatch(matcher, Req.path(null));
            assertNoMatch(matcher, Req.path(""));
            assertNoMatch(matcher, Req.path("a"));
        }

        @Test
        void hostilePathsDoNotCauseBacktrackingBlowUp() {
            // A backtracking matcher tries every way to split the path among the ** segments: O(n^4) here.
            RequestMatcher blocks = RequestMatcher.paths(List.of("/**/a/**/a/**/a/**/b/**/c"));
            String manySegments = "/" + "a/".repeat(20_000) + "c";
            RequestMatcher stars = RequestMatcher.paths(List.of("/**/a*a*a*a*b/**/c"));
            String longSegments = "/" + ("a".repeat(5_000) + "/").repeat(20) + "c";
            assertTimeout(Duration.ofSeconds(5), () -> {
                assertNoMatch(blocks, Req.path(manySegments));
                assertNoMatch(stars, Req.path(longSegments));
            });
        }

        @Test
        void emptyPatternIsRefused() {
            assertEquals("\"\": path pattern must not be empty",
                    configError(() -> RequestMatcher.paths(List.of(""))).getMessage());
        }

        @ParameterizedTest
        @ValueSource(strings = {"api/", "api", " /api", "?x", "."})
        void patternNotStartingWithSlashOrStarIsRefused(String pattern) {
            IllegalArgumentException e = configError(() -> RequestMatcher.paths(List.of("/ok", pattern)));
            assertTrue(e.getMessage().startsWith('"' + pattern + "\": path pattern must start with '/'"),
                    e.getMessage());
        }

        @Test
        void nullPatternIsRefused() {
            assertEquals("path pattern must not be null",
                    configError(() -> RequestMatcher.paths(Arrays.asList("/a", null))).getMessage());
        }

        @Test
        void matchingAllocatesNothing() {
            RequestMatcher matcher = RequestMatcher.paths(List.of("/api/", "/shop/*/checkout", "/a/**/b/**/c",
                    "*.jpg"));
            List<Req> requests = List.of(Req.path("/api/x"), Req.path("/shop/1/checkout"), Req.path("/a/x/b/y/c"),
                    Req.path("/x/y.jpg"), Req.path("/nothing/here"));
            assertAllocatesNothing(matcher, requests);
        }
    }

    @Nested
    class Hosts {

        @Test
        void exactNameIgnoringCaseAndTrailingDot() {
            RequestMatcher matcher = RequestMatcher.hosts(List.of("example.com"));
            for (String in : List.of("example.com", "EXAMPLE.com", "Example.Com.")) {
                assertMatches(matcher, Req.host(in));
            }
            for (String out : List.of("www.example.com", "example.co", "example.com.au", "xexample.com",
                    "example.com..", "", ".")) {
                assertNoMatch(matcher, Req.host(out));
            }
        }

        @Test
        void configuredNamesAreNormalised() {
            RequestMatcher matcher = RequestMatcher.hosts(List.of("Shop.Example.COM.", "*.CDN.example.com."));
            assertMatches(matcher, Req.host("shop.example.com"));
            assertMatches(matcher, Req.host("img.cdn.example.com"));
        }

        @Test
        void wildcardMatchesSubDomainsAtAnyDepthButNotTheDomain() {
            RequestMatcher matcher = RequestMatcher.hosts(List.of("*.example.com"));
            for (String in : List.of("a.example.com", "a.b.EXAMPLE.com", "www.example.com.")) {
                assertMatches(matcher, Req.host(in));
            }
            for (String out : List.of("example.com", "notexample.com", ".example.com", "a.example.com.evil",
                    "example.com.")) {
                assertNoMatch(matcher, Req.host(out));
            }
        }

        @Test
        void anyOfSeveralHosts() {
            RequestMatcher matcher = RequestMatcher.hosts(List.of("a.test", "*.b.test"));
            assertMatches(matcher, Req.host("a.test"));
            assertMatches(matcher, Req.host("x.b.test"));
            assertNoMatch(matcher, Req.host("b.test"));
            assertNoMatch(RequestMatcher.hosts(List.of()), Req.host("a.test"));
        }

        @Test
        void nullHostDoesNotMatch() {
            assertNoMatch(RequestMatcher.hosts(List.of("example.com", "*.example.com")), Req.host(null));
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "."})
        void emptyHostIsRefused(String host) {
            assertEquals('"' + host + "\": host name must not be empty",
                    configError(() -> RequestMatcher.hosts(List.of(host))).getMessage());
        }

        @ParameterizedTest
        @ValueSource(strings = {"*", "*.", "**.example.com", "a.*.com", "*.*.com", "example.*", "*example.com"})
        void misplacedWildcardIsRefused(String host) {
            IllegalArgumentException e = configError(() -> RequestMatcher.hosts(List.of(host)));
            assertTrue(e.getMessage().startsWith('"' + host + "\": a '*' is only allowed as a leading \"*.\""),
                    e.getMessage());
        }

        @Test
        void nullHostIsRefused() {
            assertEquals("host must not be null",
                    configError(() -> RequestMatcher.hosts(Arrays.asList("a.test", null))).getMessage());
        }

        @Test
        void matchingAllocatesNothing() {
            RequestMatcher matcher = RequestMatcher.hosts(List.of("example.com", "*.example.org"));
            List<Req> requests = List.of(Req.host("EXAMPLE.COM."), Req.host("a.b.example.org"), Req.host("x.test"));
            assertAllocatesNothing(matcher, requests);
        }
    }

    @Nested
    class Header {

        @Test
        void valueMustEqualOneOfTheValuesExactly() {
            RequestMatcher matcher = RequestMatcher.header("X-Tier", List.of("gold", "platinum"));
            assertMatches(matcher, Req.headers(Map.of("X-Tier", "gold")));
            assertMatches(matcher, Req.headers(Map.of("x-tier", "platinum")));
            for (String out : List.of("Gold", "gold ", "silver", "", "goldplatinum")) {
                assertNoMatch(matcher, Req.headers(Map.of("X-Tier", out)));
            }
            assertNoMatch(matcher, Req.headers(Map.of()));
            assertNoMatch(matcher, Req.headers(Map.of("X-Other", "gold")));
        }

        @Test
        void noValuesMeansTheHeaderIsPresent() {
            RequestMatcher matcher = RequestMatcher.header("X-Internal", List.of());
            assertMatches(matcher, Req.headers(Map.of("X-Internal", "")));
            assertMatches(matcher, Req.headers(Map.of("x-internal", "anything")));
            assertNoMatch(matcher, Req.headers(Map.of()));
        }

        @Test
        void badConfigurationIsRefused() {
            assertEquals("header name must not be null",
                    configError(() -> RequestMatcher.header(null, List.of())).getMessage());
            assertEquals("\"\": header name must not be empty",
                    configError(() -> RequestMatcher.header("", List.of("a"))).getMessage());
            assertEquals("header \"X-Tier\": values must not contain null",
                    configError(() -> RequestMatcher.header("X-Tier", Arrays.asList("gold", null))).getMessage());
            assertThrows(NullPointerException.class, () -> RequestMatcher.header("X-Tier", null));
        }
    }

    @Test
    void nullConfigurationListsAreNullPointerExceptions() {
        assertThrows(NullPointerException.class, () -> RequestMatcher.ipRanges(null));
        assertThrows(NullPointerException.class, () -> RequestMatcher.paths(null));
        assertThrows(NullPointerException.class, () -> RequestMatcher.hosts(null));
    }

    @Test
    void toStringShowsTheConfiguration() {
        assertEquals("ipRanges[10.0.0.0/8, ::1]", RequestMatcher.ipRanges(List.of("10.0.0.0/8", "::1")).toString());
        assertEquals("paths[/api/]", RequestMatcher.paths(List.of("/api/")).toString());
        assertEquals("hosts[*.example.com]", RequestMatcher.hosts(List.of("*.example.com")).toString());
        assertEquals("header[X-Tier in [gold]]", RequestMatcher.header("X-Tier", List.of("gold")).toString());
        assertEquals("header[X-Internal present]", RequestMatcher.header("X-Internal", List.of()).toString());
    }

    /**
     * Matching runs on every request, so it must not allocate. Measured with the JVM's per-thread
     * allocation counter where it has one; a few hundred bytes of slack cover the counter's own reads.
     */
    private static void assertAllocatesNothing(RequestMatcher matcher, List<Req> requests) {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        Req[] array = requests.toArray(new Req[0]);
        int rounds = 20_000;
        int matched = run(matcher, array, rounds); // warm up: class loading and initialisation allocate
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        matched += run(matcher, array, rounds);
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(allocated < 1024, () -> allocated + " bytes allocated by " + rounds * array.length + " matches");
        assertTrue(matched > 0);
    }

    private static int run(RequestMatcher matcher, Req[] requests, int rounds) {
        int matched = 0;
        for (int r = 0; r < rounds; r++) {
            for (Req request : requests) {
                if (matcher.matches(request)) {
                    matched++;
                }
            }
        }
        return matched;
    }
}
