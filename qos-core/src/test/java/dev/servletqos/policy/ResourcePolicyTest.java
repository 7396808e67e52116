package dev.servletqos.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The keys of the token-bucket rules and the virtual servers, and the capacity-planning check. */
class ResourcePolicyTest {

    private static final String CLASSES = "classes = premium, basic\n";

    private static final String TWO_SITES = CLASSES
            + "vhost.shop.hosts = shop.example, www.shop.example\n"
            + "vhost.shop.rmax = 50\n"
            + "vhost.shop.wmax = 1600000\n"
            + "vhost.blog.hosts = blog.example\n"
            + "vhost.blog.rmax = 100\n"
            + "vhost.blog.wmax = 3200000\n"
            + "vhosts.request-cost = 0.002\n"
            + "vhosts.byte-cost = 0.00000005\n";

    @Test
    void bucketsAreReadWithTheirDefaults() {
        QosPolicy p = parse(CLASSES + "bucket.search.path = /search/*, /find\nbucket.search.rate = 50\n"
                + "bucket.search.min-rate = 10\nbucket.export.cookie = EXPORT=1\nbucket.export.rate = 5\n"
                + "buckets.law = queue\nbuckets.queue-target = 20\n");
        assertEquals(List.of(BucketPolicy.onCookie("export", 5, 0, 5, "EXPORT=1"),
                BucketPolicy.onPaths("search", 50, 10, 5, "/search/*", "/find")), p.buckets(), "in name order");
        assertEquals(BucketControl.DEFAULTS.withLaw(BucketControl.Law.QUEUE).withQueueTarget(20), p.bucketControl());
        assertEquals(p, parse(CLASSES + "bucket.search.path = /search/*, /find\n"
                + "bucket.search.rate = 50\nbucket.search.min-rate = 10\nbucket.search.depth = 5\n"
                + "bucket.export.cookie = EXPORT=1\nbucket.export.rate = 5\nbucket.export.min-rate = 0\n"
                + "buckets.law = queue\nbuckets.queue-target = 20\n"), "depth 5 and min-rate 0 are the defaults");
    }

    @Test
    void badBucketsAreRefusedNamingTheKey() {
        assertFails(CLASSES + "bucket.s.path = /a\n", "bucket.s.rate = (unset): required");
        assertFails(CLASSES + "bucket.s.rate = 5\n", "bucket.s.path = (unset): a bucket covers either paths");
        assertFails(CLASSES + "bucket.s.rate = 5\nbucket.s.path = /a\nbucket.s.cookie = C\n", "exactly one");
        assertFails(CLASSES + "bucket.s.rate = 5\nbucket.s.path = /a\nbucket.s.min-rate = 6\n",
                "bucket.s.min-rate = 6.0: must be 0..5.0");
        assertFails(CLASSES + "bucket.s.rate = 5\nbucket.s.path = a\n", "bucket.s.path = a:");
        assertFails(CLASSES + "bucket.s.rate = 5\nbucket.s.path = /a\nbucket.s.depth = 0\n", "bucket.s.depth = 0");
        assertFails(CLASSES + "bucket.s.rat = 5\n", "did you mean bucket.s.rate?");
        assertFails(CLASSES + "bucket.s!.rate = 5\n", "a bucket name is 1 to 64 letters");
        assertFails(CLASSES + "buckets.law = pid\n", "buckets.law = pid");
        assertFails(CLASSES + "buckets.cpu-target = 1.5\n", "buckets.cpu-target = 1.5: must be more than 0");
        assertFails(CLASSES + "buckets.cpu-gian = 1\n", "did you mean buckets.cpu-gain?");
    }

    @Test
    void virtualServersWithinTheBoundAreRead() {
        QosPolicy p = parse(TWO_SITES);
        assertEquals(List.of(VirtualServerPolicy.of("blog", 100, 3200000, "blog.example"),
                VirtualServerPolicy.of("shop", 50, 1600000, "shop.example", "www.shop.example")), p.virtualServers());
        assertEquals(new VirtualServerPlan(0.002, 0.00000005, 0.58), p.virtualServerPlan());
    }

    @Test
    void theCapacityPlanningCheckRefusesTooMuchAndNamesTheHosts() {
        // shop plans 0.18, blog 0.36, a third site 0.1: 0.64 > 0.58
        String third = TWO_SITES + "vhost.news.hosts = news.example\nvhost.news.rmax = 50\nvhost.news.wmax = 0.5\n";
        String m = assertFails(third, "vhosts.utilization-bound = 0.58: capacity planning");
        assertTrue(m.contains("0.640"), m);
        assertTrue(m.contains("shop (shop.example, www.shop.example) 0.180") && m.contains("blog (blog.example) 0.360")
                && m.contains("news (news.example) 0.100"), m);
        assertEquals(3, parse(third + "vhosts.utilization-bound = 0.9\n").virtualServers().size(),
                "throughput guarantees only: a higher bound");
    }

    @Test
    void badVirtualServersAreRefusedNamingTheKey() {
        assertFails(CLASSES + "vhost.a.rmax = 5\nvhost.a.wmax = 5\nvhosts.request-cost = 0\nvhosts.byte-cost = 0\n",
                "vhost.a.hosts = (unset): required");
        assertFails(CLASSES + "vhost.a.hosts = a.example\nvhost.a.rmax = 5\nvhost.a.wmax = 5\n",
                "vhosts.request-cost = (unset): required with virtual servers");
        assertFails(CLASSES + "vhost.a.hosts = a.example\nvhost.a.wmax = 5\nvhosts.request-cost = 0\n"
                + "vhosts.byte-cost = 0\n", "vhost.a.rmax = (unset): required");
        assertFails(TWO_SITES + "vhosts.utilization-bound = 1\n", "vhosts.utilization-bound = 1.0: must be more than 0"
                + " and less than 1");
        assertFails(CLASSES + "vhost.a.host = a.example\n", "did you mean vhost.a.hosts?");
    }

    @Test
    void theExamplesInTheDocsParse() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("```properties\n(.*?)```",
                java.util.regex.Pattern.DOTALL).matcher(PolicyParserTest.docs());
        int found = 0;
        while (m.find()) {
            String example = m.group(1);
            if (example.startsWith("# search pages")) {
                assertEquals(2, parse(CLASSES + example).buckets().size());
                found++;
            } else if (example.startsWith("vhost.shop.hosts")) {
                QosPolicy p = parse(CLASSES + example);
                assertEquals(0.54, p.virtualServers().get(0).plannedUtilization(p.virtualServerPlan())
                        + p.virtualServers().get(1).plannedUtilization(p.virtualServerPlan()), 1e-9,
                        "the sum the docs state");
                found++;
            }
        }
        assertEquals(2, found, "the bucket and virtual-server examples of configuration.md");
    }

    // ---- helpers

    private static QosPolicy parse(String text) {
        Properties props = new Properties();
        try {
            props.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return PolicyParser.parse(props, "qos.properties");
    }

    private static String assertFails(String text, String expected) {
        PolicyException e = assertThrows(PolicyException.class, () -> parse(text));
        assertTrue(e.getMessage().contains(expected), () -> "expected <" + expected + "> in <" + e.getMessage() + ">");
        return e.getMessage();
    }
}
