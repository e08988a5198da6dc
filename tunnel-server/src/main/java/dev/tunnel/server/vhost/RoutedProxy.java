package dev.tunnel.server.vhost;

import dev.tunnel.protocol.Options;
import dev.tunnel.server.proxy.RunningProxy;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;

/**
 * A running proxy routed by name ({@code http}, {@code https}, {@code tcpmux}): its routes on a
 * shared port while it runs. Closing it removes the routes; the shared port stays.
 *
 * @param remotePort the shared port its routes are on
 * @param loop       the proxy's session loop
 */
public record RoutedProxy(Vhosts.Registration registration, int remotePort, EventLoop loop) implements RunningProxy {
    @Override
    public Options details() {
        return Options.builder().putList("domains", registration.domains()).build();
    }

    @Override
    public Future<?> close() {
        registration.close();
        return loop.newSucceededFuture(null);
    }
}
