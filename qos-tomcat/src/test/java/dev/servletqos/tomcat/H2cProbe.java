package dev.servletqos.tomcat;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.frames.GoAwayFrame;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.util.Callback;

/**
 * A frame-level h2c client (prior knowledge) for tests that need an HTTP/2 stream reset at a chosen moment. Each
 * {@link #connect() connection} also records how the server ended it.
 */
final class H2cProbe implements AutoCloseable {

    /** What a client got for one request: the status and the body. */
    record Answer(int status, String body) {
    }

    private final HTTP2Client client = new HTTP2Client();
    private final int port;

    H2cProbe(int port) throws Exception {
        this.port = port;
        client.start();
    }

    /** A new connection to the server. */
    Connection connect() throws Exception {
        Connection c = new Connection();
        c.session = client.connect(new InetSocketAddress("127.0.0.1", port), c.events).get(10, TimeUnit.SECONDS);
        return c;
    }

    @Override
    public void close() {
        try {
            client.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the HTTP/2 client", e);
        }
    }

    private MetaData.Request request(String path) {
        return new MetaData.Request("GET", HttpURI.from("http://127.0.0.1:" + port + path), HttpVersion.HTTP_2,
                HttpFields.EMPTY);
    }

    /** One HTTP/2 connection. */
    final class Connection {
        private Session session;
        /** The error code of the GOAWAY the server sent, completed when the server ends the connection. */
        final CompletableFuture<Integer> goAway = new CompletableFuture<>();
        private final Session.Listener events = new Session.Listener() {
            @Override
            public void onGoAway(Session s, GoAwayFrame frame) {
                goAway.complete(frame.getError());
            }

            @Override
            public void onClose(Session s, GoAwayFrame frame, Callback callback) {
                goAway.complete(frame == null ? -1 : frame.getError());
                callback.succeeded();
            }
        };

        /** Sends a GET of {@code path} whose answer is ignored; {@link #reset} resets its stream. */
        Stream open(String path) throws Exception {
            return session.newStream(new HeadersFrame(request(path), null, true), new Stream.Listener() {
            }).get(10, TimeUnit.SECONDS);
        }

        /** Resets the stream (CANCEL), as a client that gives up on the request does. */
        void reset(Stream stream) throws Exception {
            stream.reset(new ResetFrame(stream.getId(), ErrorCode.CANCEL_STREAM_ERROR.code)).get(10, TimeUnit.SECONDS);
        }

        /** Sends a GET of {@code path}; the future completes with the whole answer. */
        CompletableFuture<Answer> send(String path) {
            CompletableFuture<Answer> answer = new CompletableFuture<>();
            StringBuilder body = new StringBuilder();
            int[] status = new int[1];
            session.newStream(new HeadersFrame(request(path), null, true), new Stream.Listener() {
                @Override
                public void onHeaders(Stream stream, HeadersFrame frame) {
                    if (frame.getMetaData() instanceof MetaData.Response r) {
                        status[0] = r.getStatus();
                    }
                    if (frame.isEndStream()) {
                        answer.complete(new Answer(status[0], body.toString()));
                    } else {
                        stream.demand();
                    }
                }

                @Override
                public void onDataAvailable(Stream stream) {
                    while (true) {
                        Stream.Data data = stream.readData();
                        if (data == null) {
                            stream.demand();
                            return;
                        }
                        body.append(StandardCharsets.UTF_8.decode(data.frame().getByteBuffer()));
                        data.release();
                        if (data.frame().isEndStream()) {
                            answer.complete(new Answer(status[0], body.toString()));
                            return;
                        }
                    }
                }

                @Override
                public void onReset(Stream stream, ResetFrame frame, Callback callback) {
                    answer.completeExceptionally(new IllegalStateException("reset by the server: " + frame));
                    callback.succeeded();
                }

                @Override
                public void onFailure(Stream stream, int error, String reason, Throwable failure, Callback callback) {
                    answer.completeExceptionally(failure);
                    callback.succeeded();
                }
            }).whenComplete((stream, failure) -> {
                if (failure != null) {
                    answer.completeExceptionally(failure);
                }
            });
            return answer;
        }
    }
}
