package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class SignerTest {

    private static final byte[] OLD = Signer.secretBytes("old-secret-0123456789");
    private static final byte[] NEW = Signer.secretBytes("new-secret-0123456789");

    /** The signature computed independently of Signer, straight from the JDK. */
    private static String hmac(byte[] secret, String message) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void signsDomainBarPayloadWithTheCurrentSecret() throws Exception {
        Signer signer = new Signer(NEW, OLD);
        String signature = signer.sign("tier", "v1.premium.YWxpY2U.1000");
        assertEquals(hmac(NEW, "tier|v1.premium.YWxpY2U.1000"), signature);
        assertEquals(43, signature.length());
        assertTrue(signer.verify("tier", "v1.premium.YWxpY2U.1000", signature));
    }

    @Test
    void verifiesUnderThePreviousSecretOnlyWhileItIsConfigured() throws Exception {
        String underOld = new Signer(OLD, null).sign("tier", "p");
        assertEquals(hmac(OLD, "tier|p"), underOld);
        assertTrue(new Signer(NEW, OLD).verify("tier", "p", underOld));
        assertFalse(new Signer(NEW, null).verify("tier", "p", underOld));
        // a new signer signs with its current secret only
        assertFalse(new Signer(OLD, null).verify("tier", "p", new Signer(NEW, OLD).sign("tier", "p")));
    }

    @Test
    void domainSeparatesTokenKinds() {
        Signer signer = new Signer(NEW, null);
        String tier = signer.sign("tier", "payload");
        assertNotEquals(tier, signer.sign("session", "payload"));
        assertFalse(signer.verify("session", "payload", tier));
        assertThrows(IllegalArgumentException.class, () -> signer.sign("a|b", "c"));
        assertFalse(signer.verify("a|b", "c", signer.sign("a", "b|c")), "'|' in a domain is never verified");
    }

    @Test
    void rejectsAlteredPayloadsAndSignatures() {
        Signer signer = new Signer(NEW, null);
        String signature = signer.sign("tier", "payload");
        assertFalse(signer.verify("tier", "payloaD", signature));
        for (int i = 0; i < signature.length(); i++) {
            char c = signature.charAt(i);
            String altered = signature.substring(0, i) + (c == 'A' ? 'B' : 'A') + signature.substring(i + 1);
            assertFalse(signer.verify("tier", "payload", altered), "altered at " + i);
        }
    }

    @Test
    void neverThrowsOnBadSignatures() {
        Signer signer = new Signer(NEW, null);
        String good = signer.sign("tier", "p");
        assertFalse(signer.verify("tier", "p", null));
        assertFalse(signer.verify(null, "p", good));
        assertFalse(signer.verify("tier", null, good));
        assertFalse(signer.verify("tier", "p", ""));
        assertFalse(signer.verify("tier", "p", good + "A"), "too long");
        assertFalse(signer.verify("tier", "p", good.substring(1)), "too short");
        assertFalse(signer.verify("tier", "p", "!" + good.substring(1)), "not base64url");
        assertFalse(signer.verify("tier", "p", good.substring(0, 42) + "="), "padding");
        assertFalse(signer.verify("tier", "p", good.substring(0, 42) + "\u00e9"), "non-ASCII");
        // the last of 43 characters carries 2 unused bits: another spelling of the same bytes is refused
        char last = good.charAt(42);
        int index = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(last);
        char sameBytes = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".charAt(index ^ 1);
        assertFalse(signer.verify("tier", "p", good.substring(0, 42) + sameBytes));
    }

    @Test
    void secretsMustHaveSixteenBytesAndMessagesNameThemWithoutContent() {
        IllegalArgumentException current = assertThrows(IllegalArgumentException.class,
                () -> new Signer("short-secret".getBytes(StandardCharsets.UTF_8), null));
        assertEquals("currentSecret must be at least 16 bytes, was 12 bytes", current.getMessage());
        IllegalArgumentException previous = assertThrows(IllegalArgumentException.class,
                () -> new Signer(NEW, "tiny".getBytes(StandardCharsets.UTF_8)));
        assertEquals("previousSecret must be at least 16 bytes, was 4 bytes", previous.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Signer(null, null));
        new Signer(new byte[16], null); // exactly 16 is enough
        assertEquals(16, Signer.secretBytes("\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9").length, "UTF-8");
    }

    @Test
    void isSafeToShareBetweenThreads() throws Exception {
        Signer signer = new Signer(NEW, OLD);
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Callable<Boolean> task = () -> {
                    start.await();
                    for (int i = 0; i < 2_000; i++) {
                        String payload = "p" + id + "." + i;
                        String sig = signer.sign("tier", payload);
                        if (!sig.equals(hmac(NEW, "tier|" + payload)) || !signer.verify("tier", payload, sig)) {
                            return false;
                        }
                    }
                    return true;
                };
                results.add(pool.submit(task));
            }
            start.countDown();
            for (Future<Boolean> result : results) {
                assertTrue(result.get(30, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
