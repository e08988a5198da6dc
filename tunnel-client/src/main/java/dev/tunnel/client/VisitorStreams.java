package dev.tunnel.client;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.auth.VisitorProof;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.visitor.VisitorHello;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;

/**
 * Opens the streams of one session's visitors: each starts with the {@link VisitorHello} and its
 * proof ({@link VisitorProof}, bound to this session's login nonce and the stream id), and the
 * connection's own bytes follow without waiting.
 *
 * <p>Threading: the session's event loop.
 */
final class VisitorStreams {
    private final MuxSession mux;
    private final String loginNonce;
    private final String user;

    /**
     * @param loginNonce the server nonce this session's login answered
     * @param user       this client's user ("" for none)
     */
    VisitorStreams(MuxSession mux, String loginNonce, String user) {
        this.mux = mux;
        this.loginNonce = loginNonce;
        this.user = user;
    }

    MuxSession mux() {
        return mux;
    }

    /** A new stream to {@code visitor}'s proxy with its hello written, or null when the session cannot open one. */
    MuxStream open(VisitorTarget visitor, String source) {
        if (!mux.channel().isActive() || !mux.isStarted()) {
            return null;
        }
        MuxStream stream = mux.openStream(visitor.id(), source);
        String nonce = LoginProof.newNonce();
        String proof = VisitorProof.compute(visitor.secretKey(), visitor.type(), user, visitor.serverUser(),
                visitor.serverName(), loginNonce, stream.id(), nonce);
        stream.write(new VisitorHello(visitor.type(), visitor.serverUser(), visitor.serverName(), nonce, proof)
                .encode(mux.channel().alloc()));
        return stream;
    }

    /**
     * Wraps the handler {@code stream} has now so that a refusal by the server is logged with its
     * reason (wrong key, no such proxy, user not allowed, throttled) before the handler sees it.
     */
    static void logRefusals(MuxStream stream, StreamHandler handler, Logger log, VisitorTarget visitor, Object source) {
        stream.handler(new StreamHandler() {
            @Override
            public void onData(ByteBuf data) {
                handler.onData(data);
            }

            @Override
            public void onFin() {
                handler.onFin();
            }

            @Override
            public void onReset(int code) {
                if (ResetCode.isVisitorRefusal(code)) {
                    log.warn("{} connection from {} refused by the server: {}", visitor, source,
                            ResetCode.visitorRefusal(code));
                }
                handler.onReset(code);
            }

            @Override
            public void onWritable() {
                handler.onWritable();
            }
        });
    }
}
