package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;

/**
 * A request head read by {@link PlainRequestHead}: its bytes up to the CRLF of its last header
 * line (the empty line left off, so that forwarding lines can follow), and what routing needs of
 * it. It is the whole request: no body, and no part follows it. Reference-counted (its bytes).
 *
 * @see RequestSplice#plain
 */
final class PlainRequest extends DefaultByteBufHolder {
    private final HttpMethod method;
    private final String host;
    private final String routingHost;
    private final String path;
    private final String authorization;

    /**
     * @param host          the Host header's value
     * @param routingHost   the name it is routed by ({@link HostNames#fromHostHeader})
     * @param path          the request path, without a query
     * @param authorization the Authorization header's value, or null
     */
    PlainRequest(ByteBuf head, HttpMethod method, String host, String routingHost, String path,
                 String authorization) {
        super(head);
        this.method = method;
        this.host = host;
        this.routingHost = routingHost;
        this.path = path;
        this.authorization = authorization;
    }

    HttpMethod method() {
        return method;
    }

    String host() {
        return host;
    }

    String routingHost() {
        return routingHost;
    }

    String path() {
        return path;
    }

    String authorization() {
        return authorization;
    }

    /** The request as Netty's decoder would have read it, for the encoder path. */
    HttpRequest toHttpRequest() {
        return PlainRequestHead.decode(content(), method);
    }
}
