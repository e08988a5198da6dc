package dev.tunnel.server.vhost;

import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;

/**
 * What a vhost connection needs of a response head its app sent: the status, whether the head
 * lets the connection carry another request, and whether its body is framed by a length or by
 * chunks (else, unless it has none, by the close).
 *
 * @param code      the status code
 * @param keepAlive the version and {@code Connection} header allow another request
 * @param framed    {@code Content-Length} or chunked {@code Transfer-Encoding} is set
 */
record ResponseHead(int code, boolean keepAlive, boolean framed) {
    /** The head as Netty's decoder read it. */
    static ResponseHead of(HttpResponse response) {
        return new ResponseHead(response.status().code(), HttpUtil.isKeepAlive(response),
                HttpUtil.isContentLengthSet(response) || HttpUtil.isTransferEncodingChunked(response));
    }
}
