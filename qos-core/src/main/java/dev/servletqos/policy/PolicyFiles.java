package dev.servletqos.policy;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Properties;

/**
 * Reads policy properties from a file or a stream for {@link PolicyParser}: UTF-8, each key once, and every failure
 * a {@link PolicyException} naming the source and the reason. Stateless and thread-safe.
 */
final class PolicyFiles {

    /** Opens the text to read; the reader is closed after reading. */
    @FunctionalInterface
    interface Opener {
        Reader open() throws IOException;
    }

    private PolicyFiles() {
    }

    /**
     * The properties {@code opener} gives.
     *
     * @param source the file name or resource, for messages
     * @throws PolicyException if the text cannot be read or gives a key twice
     */
    static Properties read(String source, Opener opener) {
        Properties props = new NoDuplicates(source);
        try (Reader in = opener.open()) {
            props.load(in);
        } catch (NoSuchFileException e) {
            throw unreadable(source, "no such file");
        } catch (AccessDeniedException e) {
            throw unreadable(source, "permission denied");
        } catch (CharacterCodingException e) {
            throw unreadable(source, "not valid UTF-8");
        } catch (IOException e) {
            throw unreadable(source, e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName());
        } catch (PolicyException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            // Properties.load rejects a malformed \\uXXXX escape this way
            throw unreadable(source, e.getMessage());
        }
        return props;
    }

    private static PolicyException unreadable(String file, String reason) {
        return new PolicyException("cannot read policy file " + file + ": " + reason);
    }

    /**
     * Properties that refuse a key given twice: {@link Properties#load} would silently keep the last one, and
     * a pasted second {@code rule.1} block would quietly replace the first.
     */
    private static final class NoDuplicates extends Properties {

        private final String source;

        NoDuplicates(String source) {
            this.source = source;
        }

        @Override
        public synchronized Object put(Object key, Object value) {
            if (containsKey(key)) {
                throw new PolicyException(source + ": " + key + " appears more than once; give each key once");
            }
            return super.put(key, value);
        }
    }
}
