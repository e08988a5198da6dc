package dev.tunnel.protocol.mux;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link StreamHandler} that keeps what it received and, like a socket, consumes it either at
 * once ({@link #autoConsume}) or only when the test says so ({@link #consume}).
 */
final class RecordingHandler implements StreamHandler {
    final MuxStream stream;
    final int proxyId;
    final String source;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    final List<Integer> chunkSizes = new ArrayList<>();
    final List<Integer> resets = new ArrayList<>();
    final List<String> events = new ArrayList<>();
    boolean autoConsume;
    int unconsumed;
    int fins;
    int writables;

    RecordingHandler(MuxStream stream, int proxyId, String source) {
        this.stream = stream;
        this.proxyId = proxyId;
        this.source = source;
        stream.handler(this);
    }

    RecordingHandler autoConsume() {
        autoConsume = true;
        return this;
    }

    @Override
    public void onData(ByteBuf data) {
        int n = data.readableBytes();
        chunkSizes.add(n);
        events.add("data");
        received.writeBytes(ByteBufUtil.getBytes(data));
        data.release();
        if (autoConsume) {
            stream.consumed(n);
        } else {
            unconsumed += n;
        }
    }

    void consume(int bytes) {
        unconsumed -= bytes;
        stream.consumed(bytes);
    }

    void consumeAll() {
        consume(unconsumed);
    }

    byte[] received() {
        return received.toByteArray();
    }

    int receivedBytes() {
        return received.size();
    }

    @Override
    public void onFin() {
        fins++;
        events.add("fin");
    }

    @Override
    public void onReset(int code) {
        resets.add(code);
        events.add("reset");
    }

    @Override
    public void onWritable() {
        writables++;
    }
}
