package dev.tunnel.bench.jmh;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The tunnel's own Java work per request and per bulk chunk, both sides together, measured apart
 * from the kernel and BoringSSL (see {@link MuxChain}): the part of the CPU per request that
 * {@code bench/compare.sh} charges the tunnel which its code could still shave.
 *
 * <pre>bench/jmh.sh -prof gc RelayPath</pre>
 *
 * <ul>
 *   <li>{@link #keepAliveRequest}: an 80-byte request from the public side to the app and a
 *       160-byte answer back, the size of a {@code GET /ping} through nginx.</li>
 *   <li>{@link #bulkChunk}: 64 KiB from the public side to the app, the unit one read carries
 *       during a single-stream transfer.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class RelayPathBenchmark {
    static final byte[] REQUEST = "GET /ping HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: wrk\r\nAccept: */*\r\n\r\n   "
            .getBytes(StandardCharsets.US_ASCII);
    static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Mon, 30 Nov 2026 09:00:00 GMT\r\n"
            + "Content-Type: text/plain\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\npong\n        ")
            .getBytes(StandardCharsets.US_ASCII);
    static final byte[] CHUNK = new byte[64 * 1024];

    static {
        Arrays.fill(CHUNK, (byte) 'x');
    }

    private MuxChain chain;
    private ByteBuf chunk;

    @Setup
    public void setUp() {
        chain = new MuxChain();
        chunk = chain.read(CHUNK);
    }

    @TearDown
    public void tearDown() {
        chunk.release();
        chain.close();
    }

    /** @return the bytes both sockets were given (REQUEST + RESPONSE when all went through) */
    @Benchmark
    public int keepAliveRequest() {
        return chain.publicToLocal(chain.read(REQUEST)) + chain.localToPublic(chain.read(RESPONSE));
    }

    /**
     * The chunk is filled once and handed over as a retained duplicate each time: copying 64 KiB
     * into a buffer is the kernel's work in a socket read, not the tunnel's.
     *
     * @return the bytes the app's socket was given (CHUNK when all went through)
     */
    @Benchmark
    public int bulkChunk() {
        return chain.publicToLocal(chunk.retainedDuplicate());
    }
}
