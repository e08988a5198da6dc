package dev.tunnel.server.plugin;

import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.tls.TlsContexts;
import dev.tunnel.tls.TlsFiles;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * One {@code [[httpPlugins]]} entry: sends its calls as HTTP POSTs of JSON and reads frp's
 * answers ({@link PluginResponse}). Each call has a connection of its own ({@code Connection:
 * close}; a plugin is local or near, and a call is rare next to the traffic it guards).
 *
 * <h3>Bounds</h3>
 * A call fails, and the operation is refused, when no answer came within {@link Limits#timeoutMillis}
 * of its submission (frp waits forever), when the answer's body exceeds
 * {@link Limits#maxResponseBytes}, or when {@link Limits#maxQueued} calls already wait for one of
 * the {@link Limits#maxInFlight} connections: so a slow or hung plugin holds at most
 * {@code maxInFlight} connections and buffers, and a flood of calls is refused, not queued without end.
 *
 * <p>Threading: {@link #call} from any thread; its future completes on the executor passed in.
 * Never blocks: connects, writes and reads run on {@code group}'s loops.
 */
public final class HttpPlugin {

    /**
     * @param timeoutMillis    how long a call may take from submission to its answer, queueing included
     * @param maxResponseBytes the largest answer body read
     * @param maxInFlight      calls with a connection open at once
     * @param maxQueued        calls waiting for a connection; more fail at once
     */
    public record Limits(long timeoutMillis, int maxResponseBytes, int maxInFlight, int maxQueued) {
        /** 10 s per call, 128 KiB per answer, 16 connections, 1024 waiting calls. */
        public static final Limits DEFAULT = new Limits(10_000, 128 * 1024, 16, 1024);
    }

    /** Resolves host names without blocking a loop (the JDK's resolver would); IP literals need none. */
    private static final DnsAddressResolverGroup RESOLVER = new DnsAddressResolverGroup(
            new DnsNameResolverBuilder().datagramChannelType(Transports.datagramChannel()));

    private final String name;
    private final PluginEndpoint endpoint;
    private final Set<PluginOp> ops;
    private final SslContext tls;
    private final boolean tlsVerify;
    private final EventLoopGroup group;
    private final Limits limits;
    /** Guarded by {@code this}. */
    private final ArrayDeque<Call> waiting = new ArrayDeque<>();
    /** Guarded by {@code this}. */
    private int inFlight;

    /**
     * @param tlsVerify for an https {@code addr}: check the plugin's certificate against the JDK's
     *                  trust store and its name against the host (frp's {@code tlsVerify}); false
     *                  takes any certificate
     * @param group     the loops the calls' connections run on
     */
    public HttpPlugin(String name, PluginEndpoint endpoint, Set<PluginOp> ops, boolean tlsVerify, EventLoopGroup group,
                      Limits limits) {
        this.name = name;
        this.endpoint = endpoint;
        this.ops = Set.copyOf(ops);
        this.tlsVerify = tlsVerify;
        this.tls = endpoint.https() ? TlsContexts.client(TlsFiles.NONE, tlsVerify) : null;
        this.group = group;
        this.limits = limits;
    }

    public String name() {
        return name;
    }

    /** Whether this plugin subscribed to {@code op}. */
    public boolean handles(PluginOp op) {
        return ops.contains(op);
    }

    @Override
    public String toString() {
        return "plugin [" + name + "] at " + endpoint;
    }

    /**
     * Sends {@code op} with {@code content} (already in frp's JSON shape). The future fails with a
     * {@link PluginException.Failed} when there is no usable answer; a rejection is an answer.
     */
    Future<PluginResponse> call(PluginOp op, com.fasterxml.jackson.databind.JsonNode content, EventExecutor executor) {
        Promise<PluginResponse> promise = executor.newPromise();
        Call call = new Call(op, PluginRequests.body(op, content), promise);
        boolean start;
        synchronized (this) {
            if (inFlight < limits.maxInFlight) {
                inFlight++;
                start = true;
            } else if (waiting.size() < limits.maxQueued) {
                waiting.add(call);
                start = false;
            } else {
                return promise.setFailure(new PluginException.Failed(name, op, limits.maxInFlight
                        + " calls in flight and " + limits.maxQueued + " waiting; refused at once"));
            }
        }
        call.deadline = executor.schedule(() -> call.fail("no answer within " + limits.timeoutMillis + " ms"),
                limits.timeoutMillis, TimeUnit.MILLISECONDS);
        if (start) {
            call.start();
        }
        return promise;
    }

    /** A call ended (any thread): its connection slot goes to the next waiting call. */
    private void finished() {
        Call next;
        synchronized (this) {
            next = waiting.poll();
            while (next != null && next.promise.isDone()) { // timed out while waiting
                next = waiting.poll();
            }
            if (next == null) {
                inFlight--;
                return;
            }
        }
        next.start();
    }

    /** One call: its body, its promise, its deadline and, once started, its connection. */
    private final class Call {
        final PluginOp op;
        final byte[] body;
        final Promise<PluginResponse> promise;
        volatile ScheduledFuture<?> deadline;
        volatile Channel channel;
        private boolean slotReleased;

        Call(PluginOp op, byte[] body, Promise<PluginResponse> promise) {
            this.op = op;
            this.body = body;
            this.promise = promise;
        }

        void start() {
            if (promise.isDone()) {
                release();
                return;
            }
            Bootstrap b = new Bootstrap()
                    .group(group)
                    .channel(Transports.socketChannel())
                    .resolver(RESOLVER)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(limits.timeoutMillis, Integer.MAX_VALUE))
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ChannelPipeline p = ch.pipeline();
                            if (tls != null) {
                                p.addLast(TlsContexts.newClientHandler(tls, ch.alloc(), endpoint.host(), endpoint.port(),
                                        tlsVerify));
                            }
                            p.addLast(new HttpClientCodec());
                            p.addLast(new HttpObjectAggregator(limits.maxResponseBytes));
                            p.addLast(new Exchange(Call.this));
                        }
                    });
            ChannelFuture connect = b.connect(endpoint.host(), endpoint.port());
            channel = connect.channel();
            if (promise.isDone()) { // the deadline passed while connecting began
                connect.channel().close();
            }
            connect.addListener(f -> {
                if (!f.isSuccess()) {
                    fail(describe(f.cause()));
                }
            });
            connect.channel().closeFuture().addListener(f -> release());
        }

        void succeed(PluginResponse response) {
            if (promise.trySuccess(response)) {
                cancelDeadline();
            }
            close();
        }

        void fail(String detail) {
            if (promise.tryFailure(new PluginException.Failed(name, op, detail))) {
                cancelDeadline();
            }
            close();
        }

        private void cancelDeadline() {
            ScheduledFuture<?> d = deadline;
            if (d != null) {
                d.cancel(false);
            }
        }

        private void close() {
            Channel ch = channel;
            if (ch != null) {
                ch.close();
            }
        }

        /** Once per started call, when its connection is closed (or it never got one). */
        private void release() {
            synchronized (HttpPlugin.this) {
                if (slotReleased) {
                    return;
                }
                slotReleased = true;
            }
            finished();
        }
    }

    /** The connection's last handler: sends the request once connected, reads the one answer. */
    private final class Exchange extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final Call call;

        Exchange(Call call) {
            this.call = call;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                    endpoint.requestTarget(call.op), Unpooled.wrappedBuffer(call.body));
            request.headers()
                    .set(HttpHeaderNames.HOST, endpoint.hostHeader())
                    .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                    .set(HttpHeaderNames.CONTENT_LENGTH, call.body.length)
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
                    .set("X-Frp-Reqid", Long.toHexString(ThreadLocalRandom.current().nextLong()));
            ctx.writeAndFlush(request);
            ctx.fireChannelActive();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            if (!response.status().equals(HttpResponseStatus.OK)) {
                call.fail("HTTP status " + response.status().code() + " (expected 200)");
                return;
            }
            try {
                call.succeed(PluginResponse.parse(new ByteBufInputStream(response.content())));
            } catch (IOException e) {
                call.fail(e.getMessage());
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            call.fail("the connection closed before an answer");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            call.fail(describe(cause));
        }
    }

    private String describe(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (cause instanceof TooLongFrameException || root instanceof TooLongFrameException) {
            return "the answer is longer than " + limits.maxResponseBytes + " bytes";
        }
        if (root instanceof ConnectException) {
            return "cannot connect to " + endpoint.hostHeader() + ": " + root.getMessage();
        }
        if (root instanceof SSLException) {
            return "TLS with " + endpoint.hostHeader() + " failed: " + root.getMessage();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }
}
