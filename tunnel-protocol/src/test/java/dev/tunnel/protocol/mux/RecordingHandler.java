package dev.tunnel.protocol.mux;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link StreamHandler} that keeps what it received and, like a socket, consumes it either at
 * once ({@link #autoConsume}) or only when the test says so ({@link #consume}). It follows its
 * stream to the bulk lane ({@link #moveTo}) at once, or, with {@link #holdMoves}, when the test
 * calls {@link #land}; with {@link #movable} false it cannot move.
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
    boolean movable = true;
    private boolean holdMoves;
    private Runnable landing;
    int moves;
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

    /** Moves wait for {@link #land}: the stream stays in transit until then. */
    RecordingHandler holdMoves() {
        holdMoves = true;
        return this;
    }

    /** Ends the move that waits: the stream lands on the bulk owner, or, with a failure, the move failed. */
    void land(Throwable failure) {
        Runnable go = landing;
        landing = null;
        if (go == null) {
            throw new IllegalStateException("no move waits");
        }
        failureToLand = failure;
        go.run();
    }

    private Throwable failureToLand;

    boolean inTransit() {
        return landing != null;
    }

    @Override
    public boolean canMove() {
        return movable;
    }

    @Override
    public void moveTo(io.netty.channel.EventLoop loop, java.util.function.Consumer<Throwable> landed) {
        moves++;
        events.add("move");
        if (holdMoves) {
            landing = () -> landed.accept(failureToLand);
        } else {
            landed.accept(null);
        }
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
