package dev.tunnel.protocol.testing;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.FrameDecoder;
import dev.tunnel.protocol.FrameEncoder;
import dev.tunnel.protocol.Preface;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/** Frames as the wire carries them, for tests that feed a pipeline bytes and read its bytes back. */
public final class ControlWire {
    private ControlWire() {
    }

    /** The frames encoded back to back, in one buffer the caller owns. */
    public static ByteBuf encode(Frame... frames) {
        EmbeddedChannel encoder = new EmbeddedChannel(new FrameEncoder());
        ByteBuf all = Unpooled.buffer();
        for (Frame f : frames) {
            encoder.writeOutbound(f);
        }
        ByteBuf b;
        while ((b = encoder.readOutbound()) != null) {
            all.writeBytes(b);
            b.release();
        }
        encoder.finishAndReleaseAll();
        return all;
    }

    /** The control messages encoded back to back. */
    public static ByteBuf encode(ControlMessage... messages) {
        Frame[] frames = new Frame[messages.length];
        for (int i = 0; i < messages.length; i++) {
            frames[i] = new ControlFrame(messages[i]);
        }
        return encode(frames);
    }

    /**
     * The control messages in {@code bytes} as one direction of a connection carried them (other
     * frames are dropped); with {@code skipPreface}, the preface first.
     */
    public static List<ControlMessage> decode(byte[] bytes, boolean skipPreface) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.writeOutbound(Unpooled.wrappedBuffer(bytes));
        List<ControlMessage> out = written(ch, skipPreface);
        ch.finishAndReleaseAll();
        return out;
    }

    /**
     * The control messages {@code ch} wrote so far; with {@code skipPreface}, the first
     * {@link Preface#LENGTH} bytes (the preface) are skipped first.
     */
    public static List<ControlMessage> written(EmbeddedChannel ch, boolean skipPreface) {
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder());
        List<ControlMessage> out = new ArrayList<>();
        boolean skip = skipPreface;
        Object o;
        while ((o = ch.readOutbound()) != null) {
            ByteBuf b = (ByteBuf) o;
            if (skip) {
                b.skipBytes(Preface.LENGTH);
                skip = false;
            }
            decoder.writeInbound(b);
        }
        Object f;
        while ((f = decoder.readInbound()) != null) {
            if (f instanceof ControlFrame c) {
                out.add(c.message());
            }
            ReferenceCountUtil.release(f);
        }
        decoder.finishAndReleaseAll();
        return out;
    }
}
