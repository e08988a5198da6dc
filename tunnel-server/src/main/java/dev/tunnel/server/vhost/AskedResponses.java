package dev.tunnel.server.vhost;

import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * Keeps what an app connection delivers to the response it was asked for. A connection carries
 * one request at a time ({@link Upstream}), so one response at most is asked: from the moment a
 * request head goes out until its final response (not an interim 1xx) has ended. Anything after
 * that end (a second response in the same write, or bytes on a kept-alive connection that no
 * request is outstanding on) was asked by nobody: passed on, it would answer the visitor's next
 * request, perhaps one to another host on a pipelined connection. After a {@code 101} every
 * byte belongs to the switched protocol and passes.
 *
 * <p>Threading: the connection's loop, as its {@link Upstream}.
 */
final class AskedResponses {
    /** A request is outstanding: its final response has not ended. */
    private boolean asked;
    /** The response under way is final (2xx-5xx): its end ends what was asked. */
    private boolean finalResponse;
    private boolean switched;

    /** A request head goes out: its response is asked. */
    void requestSent() {
        asked = true;
        finalResponse = false;
    }

    /**
     * Cuts {@code parts} ({@link ResponseReader#read}'s output, in order) after the end of the
     * response asked for, releasing what it drops. Returns whether the app sent anything unasked:
     * parts dropped here, or a head begun after that end and held back by {@code reader}.
     */
    boolean cut(List<Object> parts, ResponseReader reader) {
        if (switched) {
            return false;
        }
        for (int i = 0; i < parts.size(); i++) {
            Object part = parts.get(i);
            if (!asked) {
                List<Object> unasked = parts.subList(i, parts.size());
                unasked.forEach(ReferenceCountUtil::release);
                unasked.clear();
                return true;
            }
            if (part instanceof ResponseHead head) {
                if (head.code() == 101) {
                    switched = true;
                    return false;
                }
                finalResponse = head.code() >= 200;
            } else if (part == ResponseReader.END && finalResponse) {
                asked = false;
            }
        }
        return !asked && !reader.atRest();
    }
}
