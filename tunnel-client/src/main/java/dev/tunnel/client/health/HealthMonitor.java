package dev.tunnel.client.health;

import dev.tunnel.client.config.HealthCheckConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks one proxy's local app every {@code intervalSeconds}, as frp's {@code healthCheck} does:
 * {@code tcp} passes when a connection opens within {@code timeoutSeconds}, {@code http} when a
 * GET of {@code path} answers 2xx within it. The proxy starts as failing (it is registered only
 * once a check passed); {@code maxFailed} failures in a row make it fail again, one pass makes it
 * healthy. Each change is reported once to the listener and logged once (frp logs every failed
 * check; here a down app logs one line, not one per interval).
 *
 * <p>Threading: every check, its result and the listener call run on one event loop; {@link
 * #stop} may be called from any thread and ends the checks (a check in flight is not reported).
 */
public final class HealthMonitor {
    private static final Logger log = LoggerFactory.getLogger(HealthMonitor.class);

    /** What the listener hears: healthy or not, and for a failure why (the last check's error). */
    public record Change(boolean healthy, String reason) {
    }

    private final String proxy;
    private final String type;
    private final InetSocketAddress target;
    private final String path;
    private final java.util.List<HealthCheckConfig.Header> headers;
    private final int timeoutMillis;
    private final int maxFailed;
    private final long intervalMillis;
    private final EventLoop loop;
    private final Class<? extends SocketChannel> channelType;
    private final Consumer<Change> listener;
    private volatile boolean stopped;
    private ScheduledFuture<?> next;
    /** The last verdict reported: null before the first one. Read by {@link #healthy} from any thread. */
    private volatile Boolean verdict;
    private int failures;

    /**
     * @param proxy    the proxy's name (log lines)
     * @param target   the local app
     * @param listener told each change, on {@code loop}
     */
    public HealthMonitor(String proxy, HealthCheckConfig config, InetSocketAddress target, EventLoop loop,
                         Class<? extends SocketChannel> channelType, Consumer<Change> listener) {
        this.proxy = proxy;
        this.type = config.type;
        this.target = target;
        this.path = config.path.startsWith("/") ? config.path : "/" + config.path;
        this.headers = java.util.List.copyOf(config.httpHeaders);
        this.timeoutMillis = (config.timeoutSeconds > 0 ? config.timeoutSeconds : 3) * 1000;
        this.maxFailed = config.maxFailed > 0 ? config.maxFailed : 1;
        this.intervalMillis = (config.intervalSeconds > 0 ? config.intervalSeconds : 10) * 1000L;
        this.loop = loop;
        this.channelType = channelType;
        this.listener = listener;
    }

    /** Runs the first check now, then one every interval. */
    public void start() {
        loop.execute(this::check);
    }

    /** Ends the checks; no change is reported after this returns (on the loop) or once it is seen. */
    public void stop() {
        stopped = true;
        loop.execute(() -> {
            if (next != null) {
                next.cancel(false);
            }
        });
    }

    /** Whether the last change reported was a pass (false until the first check passes). */
    public boolean healthy() {
        return Boolean.TRUE.equals(verdict);
    }

    private void check() {
        if (stopped) {
            return;
        }
        Bootstrap bootstrap = new Bootstrap().group(loop).channel(channelType)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, timeoutMillis)
                .option(ChannelOption.TCP_NODELAY, true);
        HttpCheck http = "http".equals(type) ? new HttpCheck() : null;
        bootstrap.handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                if (http != null) {
                    ch.pipeline().addLast(new HttpClientCodec(), http);
                }
            }
        });
        ChannelFuture connecting = bootstrap.connect(target);
        Channel channel = connecting.channel();
        boolean[] reported = {false}; // the timeout and the answer may both arrive: the first one counts
        ScheduledFuture<?>[] timeout = {null};
        Consumer<String> finish = failure -> {
            if (reported[0]) {
                return;
            }
            reported[0] = true;
            if (timeout[0] != null) {
                timeout[0].cancel(false);
            }
            channel.close();
            done(failure == null, failure);
        };
        timeout[0] = loop.schedule(() -> finish.accept("no answer within " + timeoutMillis / 1000 + " s"),
                timeoutMillis, TimeUnit.MILLISECONDS);
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                finish.accept("cannot connect to " + address() + ": " + f.cause().getMessage());
            } else if (http == null) {
                finish.accept(null);
            } else {
                http.send(channel, finish);
            }
        });
    }

    /** One check's outcome. */
    private void done(boolean passed, String failure) {
        if (stopped) {
            return;
        }
        if (passed) {
            failures = 0;
            if (!Boolean.TRUE.equals(verdict)) {
                verdict = Boolean.TRUE;
                log.info("proxy [{}]: health check of {} passed; registering the proxy", proxy, address());
                listener.accept(new Change(true, ""));
            } else {
                log.debug("proxy [{}]: health check passed", proxy);
            }
        } else {
            failures++;
            log.debug("proxy [{}]: health check failed ({} in a row): {}", proxy, failures, failure);
            if (Boolean.TRUE.equals(verdict) && failures >= maxFailed) {
                verdict = Boolean.FALSE;
                log.warn("proxy [{}]: health check failed {} times in a row ({}); withdrawing the proxy from the"
                        + " server until a check passes", proxy, failures, failure);
                listener.accept(new Change(false, failure));
            } else if (verdict == null) {
                verdict = Boolean.FALSE;
                log.warn("proxy [{}]: health check failed ({}); the proxy is registered once a check passes",
                        proxy, failure);
                listener.accept(new Change(false, failure));
            }
        }
        next = loop.schedule(this::check, intervalMillis, TimeUnit.MILLISECONDS);
    }

    private String address() {
        return target.getHostString() + ":" + target.getPort() + ("http".equals(type) ? path : "");
    }

    /** GET {@code path}: passes on a 2xx status line; the body is not read. */
    private final class HttpCheck extends SimpleChannelInboundHandler<HttpObject> {
        private Consumer<String> finish;

        void send(Channel channel, Consumer<String> finish) {
            this.finish = finish;
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
            request.headers().set(HttpHeaderNames.HOST, target.getHostString() + ":" + target.getPort());
            request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            for (HealthCheckConfig.Header h : headers) {
                request.headers().set(h.name, h.value);
            }
            channel.writeAndFlush(request).addListener(f -> {
                if (!f.isSuccess()) {
                    finish.accept("cannot send the request to " + address() + ": " + f.cause().getMessage());
                }
            });
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (msg instanceof HttpResponse response && finish != null) {
                int status = response.status().code();
                finish.accept(status / 100 == 2 ? null : "GET " + address() + " answered " + status + " (not 2xx)");
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (finish != null) {
                finish.accept("the connection to " + address() + " closed before an answer");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (finish != null) {
                finish.accept("GET " + address() + ": " + cause.getMessage());
            }
            ctx.close();
        }
    }
}
