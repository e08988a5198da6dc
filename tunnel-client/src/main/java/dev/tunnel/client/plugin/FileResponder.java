package dev.tunnel.client.plugin;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Date;

/**
 * Answers a request for one regular file: 200, 206 for a single byte range, 304 when
 * If-Modified-Since holds, 416 for a range past the end. The body goes out zero-copy as a
 * {@link DefaultFileRegion}, which owns and closes the file channel; the transport writes it only
 * as fast as the socket drains, so memory stays flat for any file size.
 *
 * <p>Stateless; call on the channel's event loop. Opening and stat-ing the file block briefly on
 * the event loop, which is acceptable for a local directory.
 */
final class FileResponder {

    private FileResponder() {
    }

    /** Writes the whole response and returns the future of its last part. */
    static ChannelFuture respond(ChannelHandlerContext ctx, HttpRequest request, Path file, boolean head)
            throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        long length = attributes.size();
        long modifiedSeconds = attributes.lastModifiedTime().toMillis() / 1000;
        HttpHeaders requestHeaders = request.headers();

        if (notModified(requestHeaders.get(HttpHeaderNames.IF_MODIFIED_SINCE), modifiedSeconds)) {
            HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_MODIFIED);
            response.headers().set(HttpHeaderNames.LAST_MODIFIED, DateFormatter.format(new Date(modifiedSeconds * 1000)));
            ctx.write(response);
            return ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        }

        ByteRange range = requestHeaders.contains(HttpHeaderNames.IF_RANGE)
                ? null // Validators are not compared; serving the whole file is always correct.
                : ByteRange.parse(requestHeaders.get(HttpHeaderNames.RANGE), length);
        if (range == ByteRange.UNSATISFIABLE) {
            HttpResponse response = SimpleResponses.status(ctx, HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE, head);
            response.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + length);
            return ctx.writeAndFlush(response);
        }

        long start = range == null ? 0 : range.start();
        long count = range == null ? length : range.length();
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1,
                range == null ? HttpResponseStatus.OK : HttpResponseStatus.PARTIAL_CONTENT);
        HttpHeaders headers = response.headers();
        headers.set(HttpHeaderNames.CONTENT_TYPE, ContentTypes.of(file))
                .set(HttpHeaderNames.LAST_MODIFIED, DateFormatter.format(new Date(modifiedSeconds * 1000)))
                .set(HttpHeaderNames.ACCEPT_RANGES, "bytes")
                .set(HttpHeaderNames.CONTENT_LENGTH, count);
        if (range != null) {
            headers.set(HttpHeaderNames.CONTENT_RANGE,
                    "bytes " + range.start() + "-" + range.endInclusive() + "/" + length);
        }

        if (head || count == 0) {
            ctx.write(response);
            return ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        ctx.write(response);
        ctx.write(new DefaultFileRegion(channel, start, count)); // Releasing the region closes the channel.
        return ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    private static boolean notModified(String ifModifiedSince, long modifiedSeconds) {
        if (ifModifiedSince == null) {
            return false;
        }
        Date since = DateFormatter.parseHttpDate(ifModifiedSince);
        return since != null && modifiedSeconds <= since.getTime() / 1000;
    }
}
