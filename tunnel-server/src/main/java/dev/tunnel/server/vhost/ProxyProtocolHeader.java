package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageEncoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The HAProxy PROXY protocol header ({@code transport.proxyProtocolVersion = "v1" | "v2"}) a
 * proxy's local app reads first, naming the visitor and the public address it reached, encoded
 * by Netty's {@link HAProxyMessageEncoder}. The server writes it as the stream's first bytes.
 */
public final class ProxyProtocolHeader {

    private ProxyProtocolHeader() {
    }

    /** The version a config value names: "v1", "v2", or null for "" (none). */
    public static HAProxyProtocolVersion version(String value) {
        return switch (value == null ? "" : value) {
            case "" -> null;
            case "v1" -> HAProxyProtocolVersion.V1;
            case "v2" -> HAProxyProtocolVersion.V2;
            default -> throw new IllegalArgumentException("proxyProtocolVersion: \"" + value + "\" (expected: \"v1\", \"v2\" or \"\")");
        };
    }

    /** The header for a connection from {@code source} to {@code destination}. */
    public static ByteBuf encode(HAProxyProtocolVersion version, SocketAddress source, SocketAddress destination) {
        return encode(message(version, (InetSocketAddress) source, (InetSocketAddress) destination, false));
    }

    /**
     * The v2 header for datagrams from {@code source} to {@code destination} (UDP4/UDP6, as frp
     * sends before a udp proxy's first datagram from a new peer). v1 names TCP only.
     */
    public static ByteBuf encodeDatagram(SocketAddress source, SocketAddress destination) {
        return encode(message(HAProxyProtocolVersion.V2, (InetSocketAddress) source, (InetSocketAddress) destination,
                true));
    }

    private static ByteBuf encode(HAProxyMessage message) {
        EmbeddedChannel encoder = new EmbeddedChannel(HAProxyMessageEncoder.INSTANCE);
        try {
            encoder.writeOutbound(message);
            CompositeByteBuf out = encoder.alloc().compositeBuffer();
            ByteBuf part;
            while ((part = encoder.readOutbound()) != null) {
                out.addComponent(true, part);
            }
            return out;
        } finally {
            encoder.finishAndReleaseAll();
        }
    }

    static HAProxyMessage message(HAProxyProtocolVersion version, InetSocketAddress source,
                                  InetSocketAddress destination) {
        return message(version, source, destination, false);
    }

    private static HAProxyMessage message(HAProxyProtocolVersion version, InetSocketAddress source,
                                          InetSocketAddress destination, boolean datagram) {
        InetAddress src = source.getAddress();
        InetAddress dst = destination.getAddress();
        boolean v4 = src instanceof Inet4Address && dst instanceof Inet4Address;
        String s = v4 ? src.getHostAddress() : v6(src);
        String d = v4 ? dst.getHostAddress() : v6(dst);
        return new HAProxyMessage(version, HAProxyCommand.PROXY, datagram
                ? v4 ? HAProxyProxiedProtocol.UDP4 : HAProxyProxiedProtocol.UDP6
                : v4 ? HAProxyProxiedProtocol.TCP4 : HAProxyProxiedProtocol.TCP6,
                s, d, source.getPort(), destination.getPort());
    }

    /** An address in IPv6 text form; IPv4 as ::ffff:a.b.c.d, so both ends of a mixed pair share one family. */
    private static String v6(InetAddress a) {
        if (a instanceof Inet6Address) {
            String text = a.getHostAddress();
            int zone = text.indexOf('%');
            return zone < 0 ? text : text.substring(0, zone);
        }
        return "::ffff:" + a.getHostAddress();
    }
}
