package dev.tunnel.protocol;

import io.netty.handler.codec.DecoderException;

/** The peer broke the wire protocol; the connection is closed with this message logged once. */
public final class ProtocolException extends DecoderException {
    public ProtocolException(String message) {
        super(message);
    }
}
