package dev.tunnel.web;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes an API answer with Jackson's streaming generator (jackson-core only: the data binding
 * and its hundreds of classes stay in the start-up class loader).
 */
public final class Json {
    private static final JsonFactory FACTORY = new JsonFactory();

    /** Fills one JSON document. */
    @FunctionalInterface
    public interface Body {
        void write(JsonGenerator json) throws IOException;
    }

    private Json() {
    }

    public static byte[] write(Body body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            body.write(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** An API answer. */
    public static WebResponse response(Body body) {
        return WebResponse.json(write(body));
    }

    /**
     * frp's {@code GeneralResponse}, which its APIs answer errors (and some successes) with:
     * {@code {"Code": status, "Msg": msg}} (its fields have no JSON tags, hence the capitals).
     */
    public static WebResponse general(HttpResponseStatus status, String msg) {
        byte[] body = write(json -> {
            json.writeStartObject();
            json.writeNumberField("Code", status.code());
            json.writeStringField("Msg", msg);
            json.writeEndObject();
        });
        return new WebResponse(status, WebResponse.JSON, body, java.util.Map.of());
    }
}
