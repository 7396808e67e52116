package dev.servletqos.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyParserTest {

    private static final String SECRET = "tier-secret-0123456789abcdef";
    private static final String PREVIOUS = "older-secret-0123456789abcdef";
    private static final Map<String, String> VARIABLES = Map.of(
            "env:QOS_TIER_SECRET", SECRET,
            "sys:qos.previous.secret", PREVIOUS);

    @TempDir
    Path dir;

    // ---- whole files

    @Test
    void fullFileRoundTrip() {
        QosPolicy p = PolicyParser.load(resource("full.properties"), VARIABLES::get);

        assertEquals(List.of("premium", "standard", "basic"), names(p));
        assertEquals("standard", p.defaultClass());
        assertEquals(QosPolicy.Scheduling.SHARED_CAPACITY, p.scheduling());
        assertEquals(32, p.maxExecuting());
        assertFalse(p.borrowing());

        ClassPolicy premium = p.classes().get(0);
        assertEquals(20, premium.capacity().budget());
        assertEquals(4, premium.capacity().minBudget());
        assertEquals(6, premium.capacity().weight());
        assertEquals(8, premium.capacity().reserve());
        assertEquals(200, premium.queue().maxQueue());
        assertEquals(Duration.ofSeconds(15), premium.queue().maxWait());
        assertEquals(Duration.ofMillis(250), premium.delay().target());
        assertEquals(50.0, premium.admission().sessionRate());
        assertEquals(80, premium.admission().sessionBurst());
        assertEquals(500, premium.admission().totalQueuedTrigger());
        assertEquals(0, premium.admission().higherQueuedTrigger());

        ClassPolicy standard = p.classes().get(1);
        assertEquals(12, standard.capacity().budget());
        assertEquals(2, standard.capacity().minBudget());
        assertEquals(3, standard.capacity().weight());
        assertEquals(4, standard.capacity().reserve());
        assertEquals(150, standard.queue().maxQueue());
        assertEquals(Duration.ofSeconds(8), standard.queue().maxWait());
        assertEquals(Duration.ofSeconds(2), standard.delay().target());
        assertEquals(12.5, standard.admission().sessionRate());
        assertEquals(25, standard.admission().sessionBurst());
        assertEquals(120, standard.admission().totalQueuedTrigger());
        assertEquals(6, standard.admission().higherQueuedTrigger());

        ClassPolicy basic = p.classes().get(2);
        assertEquals(8, basic.capacity().budget());
        assertEquals(0, basic.capacity().minBudget());
        assertEquals(1, basic.capacity().weight());
        assertEquals(0, basic.capacity().reserve());
        assertEquals(50, basic.queue().maxQueue());
        assertEquals(Duration.ofSeconds(5), basic.queue().maxWait());
        assertEquals(Duration.ofSeconds(3), basic.delay().target());
        assertEquals(0.5, basic.admission().sessionRate());
        assertEquals(3, basic.admission().sessionBurst());
        assertEquals(100, basic.admission().totalQueuedTrigger(), "unset: the policy-wide j");
        assertEquals(4, basic.admission().higherQueuedTrigger(), "unset: the policy-wide k");

        assertEquals(List.of(
                Rule.tierCookie(),
                Rule.ip("premium", "10.0.0.0/8", "192.168.1.17"),
                Rule.path("premium", "/admin/", "/checkout/"),
                Rule.host("standard", "partners.example.com", "api.partners.example.com"),
                Rule.header("standard", "X-Plan", "gold", "silver")), p.rules());

        assertEquals("SHOPTIER", p.cookies().tierName());
        assertEquals(SigningKeys.of(SECRET, PREVIOUS), p.cookies().signingKeys());
        assertTrue(p.cookies().signingKeys().configured() && p.cookies().signingKeys().hasPrevious());
        assertEquals(Duration.ofDays(90), p.cookies().tierMaxAge());
        assertEquals("SHOPSESSION", p.cookies().sessionName());
        assertEquals(Duration.ofMinutes(20), p.cookies().sessionMaxAge());
        assertEquals(50_000, p.sessionTable().maxEntries());
        assertEquals(Duration.ofMinutes(15), p.sessionTable().idleTimeout());
        assertEquals(100, p.admission().totalQueuedTrigger());
        assertEquals(4, p.admission().higherQueuedTrigger());
        assertEquals(429, p.admission().rejectStatus());
        assertEquals(Duration.ofSeconds(30), p.admission().retryAfter());

        ControlPolicy control = p.control();
        assertEquals(ControlPolicy.Mode.RELATIVE, control.mode());
        assertEquals(Duration.ofMillis(500), control.period());
        assertEquals(0.95, control.delayQuantile());
        assertEquals(new ControlPolicy.Gains(-1.5, 0.5), control.absolute());
        assertEquals(new ControlPolicy.Gains(0.4, 0.1), control.relative());
        assertFalse(control.antiWindup());
    }

    @Test
    void numbersTheOperatorGivesKeepTheStaticModes() {
        QosPolicy p = parse("classes = a, b\nmax-executing = 24\nadmission.total-queued = 10");
        assertEquals(ControlPolicy.Capacity.FIXED, p.control().capacity());
        assertEquals(ControlPolicy.Admission.TRIGGERS, p.control().admission());
        assertEquals(24, p.maxExecuting());
        assertEquals(ControlPolicy.Admission.TRIGGERS, parse("classes = a\nmax-executing = 8").control().admission());
        QosPolicy ceiling = parse("classes = a, b\nmax-executing = 24\ncontrol.capacity = auto");
        assertEquals(24, ceiling.maxExecutingCeiling());
        assertEquals(16, ceiling.maxExecuting(), "the law starts below the ceiling");
        assertEquals(ControlPolicy.Admission.TRIGGERS,
                parse("classes = a\nclass.a.session-rate = 5").control().admission());
        assertFails("classes = a\ncontrol.capacity = guess", "control.capacity = guess");
    }

    @Test
    void onlyClassesGivesDefaults() {
        QosPolicy p = PolicyParser.load(resource("minimal.properties"), VARIABLES::get);

        assertEquals(List.of("premium", "basic"), names(p));
        assertEquals("basic", p.defaultClass());
        assertEquals(QosPolicy.Scheduling.STRICT_PRIORITY, p.scheduling());
        // nothing measured in the policy: the engine finds max-executing (from 16, at most 200) and admission rates
        assertEquals(QosPolicy.INITIAL_LIMIT, p.maxExecuting());
        assertEquals(QosPolicy.DEFAULT_CEILING, p.maxExecutingCeiling());
        assertEquals(ControlPolicy.Capacity.AUTO, p.control().capacity());
        assertEquals(ControlPolicy.Admission.AUTO, p.control().admission());
        assertTrue(p.borrowing());
        assertEquals(List.of(), p.rules());
        assertEquals("QOSTIER", p.cookies().tierName());
        assertFalse(p.cookies().signingKeys().configured());
        assertFalse(p.cookies().signingKeys().hasPrevious());
        assertFalse(p.cookies().tierSecure());
        assertFalse(p.cookies().sessionSecure());
        assertEquals(Duration.ofDays(365), p.cookies().tierMaxAge());
        assertEquals("QOSSESSION", p.cookies().sessionName());
        assertEquals(Duration.ofMinutes(30), p.cookies().sessionMaxAge());
        assertEquals(100_000, p.sessionTable().maxEntries());
        assertEquals(Duration.ofMinutes(30), p.sessionTable().idleTimeout());
        assertEquals(0, p.admission().totalQueuedTrigger());
        assertEquals(0, p.admission().higherQueuedTrigger());
        assertEquals(503, p.admission().rejectStatus());
        assertEquals(Duration.ofSeconds(10), p.admission().retryAfter());
        assertEquals(ControlPolicy.Mode.OFF, p.control().mode());
        assertEquals(Duration.ofSeconds(1), p.control().period());
        assertEquals(0.0, p.control().delayQuantile(), "the mean");
        assertEquals(new ControlPolicy.Gains(ControlPolicy.DEFAULT_ABSOLUTE_GAIN, 0.3), p.control().absolute());
        assertEquals(new ControlPolicy.Gains(0.3, 0.05), p.control().relative());
        assertTrue(p.control().antiWindup());
        assertEquals(QosPolicy.DEFAULT_TOP_RESERVE, p.defaultTopReserve(), "the default, not a given reserve");
        for (ClassPolicy c : p.classes()) {
            assertEquals(QosPolicy.DEFAULT_CEILING, c.capacity().budget(), c.name() + ": all permits");
            assertEquals(1, c.capacity().minBudget(), c.name());
            assertEquals(1, c.capacity().weight(), c.name());
            assertEquals(c == p.classes().get(0) ? QosPolicy.DEFAULT_TOP_RESERVE : 0, c.capacity().reserve(),
                    c.name() + ": the highest class keeps a permit");
            assertEquals(1000, c.queue().maxQueue(), c.name());
            assertEquals(Duration.ofSeconds(10), c.queue().maxWait(), c.name());
            assertEquals(Duration.ofSeconds(1), c.delay().target(), c.name());
            assertEquals(0.0, c.admission().sessionRate(), c.name());
            assertEquals(1, c.admission().sessionBurst(), c.name());
            assertEquals(0, c.admission().totalQueuedTrigger(), c.name());
            assertEquals(0, c.admission().higherQueuedTrigger(), c.name());
        }
    }

    @Test
    void rulesApplyInNumericOrderNotTextOrder() {
        QosPolicy p = parse("classes = a, b, c\n"
                + "rule.10.type = path\nrule.10.value = /ten\nrule.10.class = c\n"
                + "rule.2.type = path\nrule.2.value = /two\nrule.2.class = b\n"
                + "rule.1.type = path\nrule.1.value = /one\nrule.1.class = a\n");

        assertEquals(List.of(Rule.path("a", "/one"), Rule.path("b", "/two"), Rule.path("c", "/ten")), p.rules());
    }

    @Test
    void valuesAreTrimmedAndListsSplitOnCommas() {
        QosPolicy p = parse("classes =   gold ,silver,  bronze   \n"
                + "max-executing = 24   \n"
                + "rule.1.type = ip\nrule.1.value =  10.1.0.0/16 ,  ::1  \nrule.1.class = gold \n");

        assertEquals(List.of("gold", "silver", "bronze"), names(p));
        assertEquals(24, p.maxExecuting());
        assertEquals(List.of(Rule.ip("gold", "10.1.0.0/16", "::1")), p.rules());
    }

    @Test
    void durationUnits() {
        assertEquals(Duration.ofMillis(250), maxWait("250ms"));
        assertEquals(Duration.ofSeconds(5), maxWait("5s"));
        assertEquals(Duration.ofMinutes(10), maxWait("10m"));
        assertEquals(Duration.ofHours(1), maxWait("1h"));
        assertEquals(Duration.ofSeconds(5), maxWait("PT5S"));
        assertEquals(Duration.ofMillis(1500), maxWait("PT1.5S"));
        assertEquals(Duration.ofDays(30), PolicyParser.parse(props("classes = a\ntier-cookie.max-age = 30d"), "t")
                .cookies().tierMaxAge());
    }

    @Test
    void headerRuleMayOmitValues() {
        QosPolicy p = parse("classes = a, b\nrule.1.type = header\nrule.1.header = X-Beta\nrule.1.class = a\n");

        assertEquals(List.of(Rule.header("a", "X-Beta")), p.rules());
    }

    @Test
    void systemPropertyReferenceGoesThroughTheSeam() {
        QosPolicy p = parse("classes = a\nmax-executing = ${sys:qos.max}\n",
                Map.of("sys:qos.max", " 40 ")::get);

        assertEquals(40, p.maxExecuting());
    }

    @Test
    void withoutSourceTheKeyIsKept() {
        PolicyException e = assertThrows(PolicyException.class,
                () -> PolicyParser.parse(props("classes = a\nclass.a.budget = abc"), null));

        assertEquals("class.a.budget = abc: not an integer", e.getMessage());
        assertEquals("class.a.budget", e.key());
    }

    @Test
    void aNegativeBudgetIsReportedNotTakenForUnset() {
        PolicyException e = assertThrows(PolicyException.class,
                () -> PolicyParser.parse(props("classes = a\nmax-executing = 4\nclass.a.budget = -1"), null));
        assertEquals("class.a.budget = -1: must be 0..4 (max-executing)", e.getMessage());
    }

    @Test
    void withASourceTheKeyIsKeptToo() {
        PolicyException e = assertThrows(PolicyException.class,
                () -> PolicyParser.parse(props("classes = a\nmax-executing = 4\nclass.a.budget = 9"), "qos.properties"));

        assertEquals("qos.properties: class.a.budget = 9: must be 0..4 (max-executing)", e.getMessage());
        assertEquals("class.a.budget", e.key());
    }

    // ---- syntax errors, found by the parser

    @Test
    void badInteger() {
        assertFails("classes = premium, basic\nclass.basic.budget = abc",
                "qos.properties: class.basic.budget = abc: not an integer");
        assertFails("classes = a\nmax-executing = 1.5", "qos.properties: max-executing = 1.5: not an integer");
        assertFails("classes = a\nmax-executing = +8", "max-executing = +8: not an integer");
        assertFails("classes = a\nmax-executing = 99999999999", "max-executing = 99999999999: not an integer");
    }

    @Test
    void badDecimal() {
        assertFails("classes = a\nclass.a.session-rate = 1e3", "class.a.session-rate = 1e3: not a decimal number");
    }

    @Test
    void badBoolean() {
        assertFails("classes = a\nborrowing = yes", "borrowing = yes: must be true or false");
    }

    @Test
    void bareNumberDurationAsksForAUnit() {
        String m = assertFails("classes = a\nclass.a.max-wait = 5", "class.a.max-wait = 5: a duration needs a unit");
        assertTrue(m.contains("5s"), m);
    }

    @Test
    void badDuration() {
        assertFails("classes = a\nadmission.retry-after = 5 sec", "admission.retry-after = 5 sec: not a duration");
        assertFails("classes = a\nadmission.retry-after = 5w", "admission.retry-after = 5w: not a duration");
        assertFails("classes = a\nadmission.retry-after = PTxS", "admission.retry-after = PTxS: not a duration");
        assertFails("classes = a\nadmission.retry-after = 99999999999999999d", "duration too large");
    }

    @Test
    void unknownScheduling() {
        String m = assertFails("classes = a\nscheduling = round-robin",
                "qos.properties: scheduling = round-robin: unknown scheduling");
        assertTrue(m.contains("strict-priority, weighted, shared-capacity, fixed-capacity, earliest-deadline"), m);
    }

    @Test
    void unknownKeyNamesTheNearestKey() {
        assertFails("classes = a\nmax-executting = 32",
                "qos.properties: max-executting = 32: unknown key; did you mean max-executing?");
        assertFails("classes = a\nmaxExecuting = 32", "did you mean max-executing?");
        assertFails("classes = a\nclass.a.budjet = 3", "class.a.budjet = 3: unknown key; did you mean class.a.budget?");
        assertFails("classes = a\nrule.1.clas = a", "rule.1.clas = a: unknown key; did you mean rule.1.class?");
        assertFails("classes = a\nthrottle = on", "throttle = on: unknown key; see docs/configuration.md");
        assertFails("classes = a\nclass.a.throttle = on",
                "class.a.throttle = on: unknown key; per-class keys are budget, min-budget, weight");
        assertFails("classes = a\nrule.1.match = x", "rule.1.match = x: unknown key; rule keys are type, value, header,"
                + " class");
    }

    @Test
    void classKeyForUnlistedClass() {
        assertFails("classes = premium, basic\nclass.gold.budget = 4",
                "class.gold.budget = 4: class gold is not listed in classes (premium, basic)");
        assertFails("classes = premium, basic\nclass.basci.budget = 4", "did you mean class.basic.budget?");
    }

    @Test
    void missingClasses() {
        assertFails("max-executing = 8", "qos.properties: classes = (unset): required");
    }

    @Test
    void badClassName() {
        assertFails("classes = premium, best effort", "classes = premium, best effort: class name \"best effort\"");
        assertFails("classes = premium,,basic", "classes = premium,,basic: empty item");
    }

    @Test
    void ruleErrors() {
        assertFails("classes = a\nrule.1.value = /x\nrule.1.class = a", "rule.1.type = (unset): required");
        assertFails("classes = a\nrule.1.type = cookie\nrule.1.class = a", "rule.1.type = cookie: unknown rule type");
        assertFails("classes = a\nrule.01.type = ip", "rule.01.type = ip: the rule number must be a positive integer");
        assertFails("classes = a\nrule.x.type = ip", "rule.x.type = ip: the rule number");
        assertFails("classes = a\nrule.0.type = ip", "rule.0.type = ip: the rule number");
        assertFails("classes = a\nrule.1.type = tier-cookie\nrule.1.class = a\ntier-cookie.secret = " + SECRET,
                "rule.1.class = a: not used: a tier-cookie rule takes its class from the cookie");
        assertFails("classes = a\nrule.1.type = path\nrule.1.value = /x\nrule.1.header = X\nrule.1.class = a",
                "rule.1.header = X: not used");
        assertFails("classes = a\nrule.1.type = header\nrule.1.class = a",
                "rule.1.header = (unset): required for a header rule");
        assertFails("classes = a\nrule.1.type = host\nrule.1.class = a",
                "rule.1.value = (unset): required for a host rule");
        assertFails("classes = a\nrule.1.type = tier-cookie",
                "tier-cookie.secret = (unset): a tier-cookie rule needs a secret");
    }

    @Test
    void ruleWithoutClass() {
        assertFails("classes = premium, basic\nrule.7.type = path\nrule.7.value = /admin/",
                "qos.properties: rule.7.class = (unset): required for a path rule: one of premium, basic");
    }

    @Test
    void missingEnvironmentSecret() {
        String m = assertFails("classes = a\ntier-cookie.secret = ${env:QOS_MISSING}",
                "qos.properties: tier-cookie.secret = (hidden): environment variable QOS_MISSING is not set");
        assertFalse(m.contains("${"), m);
        assertFails("classes = a\ntier-cookie.secret = ${QOS_SECRET}",
                "tier-cookie.secret = (hidden): not a valid reference");
        assertFails("classes = a\nmax-executing = ${sys:qos.none}",
                "max-executing = ${sys:qos.none}: system property qos.none is not set");
    }

    @Test
    void secretsNeverAppearInMessages() {
        String m = assertFails("classes = a\ntier-cookie.secrett = hunter2-hunter2-hunter2",
                "tier-cookie.secrett = (hidden): unknown key; did you mean tier-cookie.secret?");
        assertFalse(m.contains("hunter2"), m);
    }

    @Test
    void controlSyntaxErrors() {
        assertFails("classes = a\ncontrol.mode = pid",
                "qos.properties: control.mode = pid: unknown control mode; one of off, absolute, relative");
        assertFails("classes = a\ncontrol.delay = p75",
                "control.delay = p75: unknown delay; one of mean, p50, p90, p95, p99");
        assertFails("classes = a\ncontrol.absolute.gain = +0.8",
                "control.absolute.gain = +0.8: not a decimal number");
        assertFails("classes = a\ncontrol.absolute.gain = -.8", "control.absolute.gain = -.8: not a decimal number");
        assertFails("classes = a\ncontrol.period = 1", "control.period = 1: a duration needs a unit");
        assertFails("classes = a\ncontrol.anti-windup = on", "control.anti-windup = on: must be true or false");
        assertFails("classes = a\ncontrol.absolute.gian = -1",
                "control.absolute.gian = -1: unknown key; did you mean control.absolute.gain?");
        assertFails("classes = a\ncontrol.antiWindup = false",
                "control.antiWindup = false: unknown key; did you mean control.anti-windup?");
        assertFails("classes = a\ncontrol.windup = false",
                "control.windup = false: unknown key; controller keys are control.mode, control.capacity, control.admission, control.period");
    }

    @Test
    void controlDelayNamesAreQuantiles() {
        assertEquals(0.0, parse("classes = a\ncontrol.delay = mean").control().delayQuantile());
        assertEquals(0.5, parse("classes = a\ncontrol.delay = p50").control().delayQuantile());
        assertEquals(0.9, parse("classes = a\ncontrol.delay = p90").control().delayQuantile());
        assertEquals(0.95, parse("classes = a\ncontrol.delay = p95").control().delayQuantile());
        assertEquals(0.99, parse("classes = a\ncontrol.delay = p99").control().delayQuantile());
    }

    @Test
    void controlGainsTakeEitherSign() {
        ControlPolicy c = parse("classes = a, b\ncontrol.mode = absolute\n"
                + "control.absolute.gain = -2.25\ncontrol.relative.gain = 1.5\ncontrol.relative.zero = 0")
                .control();
        assertEquals(ControlPolicy.Mode.ABSOLUTE, c.mode());
        assertEquals(new ControlPolicy.Gains(-2.25, ControlPolicy.DEFAULT_ABSOLUTE_ZERO), c.absolute());
        assertEquals(new ControlPolicy.Gains(1.5, 0), c.relative());
        assertEquals(new ControlPolicy.Gains(-3, ControlPolicy.DEFAULT_RELATIVE_ZERO),
                parse("classes = a\ncontrol.relative.gain = -3").control().relative());
    }

    @Test
    void controlRangeErrors() {
        assertFails("classes = a\ncontrol.period = 50ms",
                "qos.properties: control.period = PT0.05S: must be 100ms..1m");
        assertFails("classes = a\ncontrol.period = 2m", "control.period = PT2M: must be 100ms..1m");
        assertFails("classes = a\ncontrol.absolute.gain = 0",
                "control.absolute.gain = 0.0: must be a finite number other than 0");
        assertFails("classes = a\ncontrol.relative.gain = -0.0",
                "control.relative.gain = -0.0: must be a finite number other than 0");
        assertFails("classes = a\ncontrol.absolute.zero = 1",
                "control.absolute.zero = 1.0: must be at least 0 and less than 1");
        assertFails("classes = a\ncontrol.relative.zero = -0.05",
                "control.relative.zero = -0.05: must be at least 0 and less than 1");
        assertFails("classes = a\ncontrol.mode = relative",
                "control.mode = relative: relative control needs at least two classes");
        assertEquals(Duration.ofMillis(100), parse("classes = a\ncontrol.period = 100ms").control().period());
        assertEquals(Duration.ofMinutes(1), parse("classes = a\ncontrol.period = 1m").control().period());
    }

    @Test
    void controlFromTheBuilderIsCheckedToo() {
        QosPolicy.Builder b = QosPolicy.builder().addClass(ClassPolicy.named("a"));
        PolicyException e = assertThrows(PolicyException.class,
                () -> b.control(ControlPolicy.DEFAULTS.withDelayQuantile(1)).build());
        assertEquals("control.delay", e.key());
        e = assertThrows(PolicyException.class, () -> b.control(ControlPolicy.DEFAULTS
                .withAbsolute(new ControlPolicy.Gains(Double.NaN, 0.3))).build());
        assertEquals("control.absolute.gain = NaN: must be a finite number other than 0", e.getMessage());
        assertEquals(0.8, b.control(ControlPolicy.DEFAULTS.withDelayQuantile(0.8)).build().control().delayQuantile());
    }

    // ---- semantic errors, found by QosPolicy.Builder.build() and reported with the source

    @Test
    void ruleReferencingUnknownClassNamesTheFilesRuleNumber() {
        assertFails("classes = premium, basic\n"
                        + "rule.2.type = path\nrule.2.value = /a\nrule.2.class = basic\n"
                        + "rule.10.type = path\nrule.10.value = /b\nrule.10.class = gold\n",
                "qos.properties: rule.10.class = gold: no such class");
    }

    @Test
    void badCidrInRuleValue() {
        assertFails("classes = premium, basic\nrule.3.type = ip\nrule.3.value = 10.0.0.0/33\nrule.3.class = premium",
                "qos.properties: rule.3.value = 10.0.0.0/33: ");
    }

    @Test
    void budgetAboveMaxExecuting() {
        assertFails("classes = premium, basic\nmax-executing = 16\nclass.basic.budget = 40",
                "qos.properties: class.basic.budget = 40: must be 0..16 (max-executing)");
    }

    @Test
    void reservesAddUpToTooMuch() {
        assertFails("classes = premium, basic\nmax-executing = 10\n"
                        + "class.premium.reserve = 6\nclass.basic.reserve = 6",
                "qos.properties: class.*.reserve = 12: the reserves add up to more than max-executing (10)");
    }

    @Test
    void secretTooShortIsNotRevealed() {
        String m = assertFails("classes = a\ntier-cookie.secret = short-pw",
                "qos.properties: tier-cookie.secret = (hidden, 8 bytes): must be at least 16 bytes");
        assertFalse(m.contains("short-pw"), m);
    }

    @Test
    void rejectStatus500() {
        assertFails("classes = a\nadmission.reject-status = 500",
                "qos.properties: admission.reject-status = 500: must be 503 or 429");
    }

    @Test
    void unknownDefaultClass() {
        assertFails("classes = a, b\ndefault-class = c", "default-class = c: no such class");
    }

    // ---- files

    @Test
    void missingFileNamesThePathAndReason() {
        Path missing = dir.resolve("nope.properties");

        PolicyException e = assertThrows(PolicyException.class, () -> PolicyParser.load(missing));

        assertEquals("cannot read policy file " + missing + ": no such file", e.getMessage());
    }

    @Test
    void fileThatIsNotUtf8() throws IOException {
        Path file = dir.resolve("latin1.properties");
        Files.write(file, "classes = caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));

        PolicyException e = assertThrows(PolicyException.class, () -> PolicyParser.load(file));

        assertEquals("cannot read policy file " + file + ": not valid UTF-8", e.getMessage());
    }

    @Test
    void keyGivenTwiceInAFile() throws IOException {
        Path file = dir.resolve("twice.properties");
        Files.writeString(file, "classes = a\nrule.1.type = path\nrule.1.type = ip\n");

        PolicyException e = assertThrows(PolicyException.class, () -> PolicyParser.load(file));

        assertEquals(file + ": rule.1.type appears more than once; give each key once", e.getMessage());
    }

    @Test
    void malformedEscapeInAFile() throws IOException {
        Path file = dir.resolve("escape.properties");
        Files.writeString(file, "classes = a\\u00zz\n");

        PolicyException e = assertThrows(PolicyException.class, () -> PolicyParser.load(file));

        assertTrue(e.getMessage().startsWith("cannot read policy file " + file + ": "), e.getMessage());
    }

    @Test
    void fileErrorsArePrefixedWithThePath() throws IOException {
        Path file = dir.resolve("qos.properties");
        Files.writeString(file, "classes = a\nmax-executing = many\n");

        PolicyException e = assertThrows(PolicyException.class, () -> PolicyParser.load(file));

        assertEquals(file + ": max-executing = many: not an integer", e.getMessage());
    }

    // ---- the documentation stays true to the parser

    @Test
    void exampleInTheDocsParses() {
        String doc = docs();
        Matcher m = Pattern.compile("```properties\n(.*?)```", Pattern.DOTALL).matcher(doc);
        assertTrue(m.find(), "docs/configuration.md has a ```properties example");

        QosPolicy p = PolicyParser.parse(props(m.group(1)), "configuration.md",
                Map.of("env:QOS_TIER_SECRET", SECRET)::get);

        assertEquals(List.of("premium", "basic"), names(p));
    }

    @Test
    void docsListEveryKey() {
        String doc = docs();
        List<String> missing = new ArrayList<>();
        for (PolicyKeys.Section<?> section : PolicyKeys.SECTIONS) {
            for (String k : section.names(null)) {
                if (!doc.contains("`" + k + "`")) {
                    missing.add(k);
                }
            }
        }
        assertEquals(List.of(), missing, "keys missing from docs/configuration.md");
    }

    // ---- helpers

    private static Properties props(String text) {
        Properties props = new Properties();
        try {
            props.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return props;
    }

    private static QosPolicy parse(String text) {
        return parse(text, VARIABLES::get);
    }

    private static QosPolicy parse(String text, Function<String, String> variables) {
        return PolicyParser.parse(props(text), "qos.properties", variables);
    }

    /** Parsing fails with a message containing {@code expected}; returns the message. */
    private static String assertFails(String text, String expected) {
        PolicyException e = assertThrows(PolicyException.class, () -> parse(text));
        assertTrue(e.getMessage().contains(expected), () -> "expected <" + expected + "> in <" + e.getMessage() + ">");
        return e.getMessage();
    }

    private static Duration maxWait(String value) {
        return parse("classes = a\nclass.a.max-wait = " + value).classes().get(0).queue().maxWait();
    }

    private static List<String> names(QosPolicy p) {
        List<String> names = new ArrayList<>();
        for (ClassPolicy c : p.classes()) {
            names.add(c.name());
        }
        return names;
    }

    private static Path resource(String name) {
        URL url = PolicyParserTest.class.getResource("/policies/" + name);
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static String docs() {
        // surefire runs in the module directory; the docs are beside it
        Path doc = Path.of("..", "docs", "configuration.md");
        try {
            return Files.readString(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
