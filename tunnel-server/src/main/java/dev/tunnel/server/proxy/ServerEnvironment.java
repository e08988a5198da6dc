package dev.tunnel.server.proxy;

import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.server.web.ServerStats;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;

/**
 * What a proxy type may use server-wide ({@link ServerProxyType#open}): the config, the event
 * loops every session runs on, the group of public connections the shutdown drain waits on
 * (a type adds each public connection it accepts), and the figures the dashboard, the API and
 * {@code /metrics} show.
 */
public record ServerEnvironment(ServerConfig config, EventLoopGroup workers, ChannelGroup publicConns,
                                ServerStats stats) {
}
