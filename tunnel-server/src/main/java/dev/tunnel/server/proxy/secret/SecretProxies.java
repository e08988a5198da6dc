package dev.tunnel.server.proxy.secret;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.visitor.StreamSplice;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.ProxySession;
import java.util.List;
import dev.tunnel.server.vhost.ProxyProtocolHeader;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The secret proxies ({@code stcp}, {@code sudp}) of every session, by {@code user.name} as
 * frp names them (just {@code name} for a client without a user): what visitors ask for.
 *
 * <p>Threading: sessions on every loop register and look up; the map is concurrent.
 */
public final class SecretProxies {
    private static final Logger log = LoggerFactory.getLogger(SecretProxies.class);

    /**
     * One registered secret proxy.
     *
     * @param allowUsers users whose visitors may connect; empty = only the provider's own user,
     *                   {@code *} = everyone (frp's rule)
     */
    public record Provider(ProxySession session, ProxyRef ref, String type, String user, String name,
                           String secretKey, List<String> allowUsers) {
        public String qualified() {
            return qualify(user, name);
        }

        public boolean allows(String visitorUser) {
            if (allowUsers.isEmpty()) {
                return visitorUser.equals(user);
            }
            return allowUsers.contains("*") || allowUsers.contains(visitorUser);
        }

        @Override
        public String toString() {
            return type + " proxy [" + qualified() + "]"; // never the secret key
        }
    }

    private final Map<String, Provider> providers = new ConcurrentHashMap<>();

    public static String qualify(String user, String name) {
        return user.isEmpty() ? name : user + "." + name;
    }

    /** Registers {@code provider}; returns why not (its name is taken), or null. */
    String register(Provider provider) {
        Provider old = providers.putIfAbsent(provider.qualified(), provider);
        return old == null ? null : "secret proxy [" + provider.qualified() + "] is already registered by another client";
    }

    void unregister(Provider provider) {
        providers.remove(provider.qualified(), provider);
    }

    /** The provider registered as {@code user.name}, or null. Any thread. */
    public Provider find(String user, String name) {
        return providers.get(qualify(user, name));
    }

    /**
     * Opens a stream on the provider's session for a visitor's stream and splices the two, on the
     * provider's loop; refuses the visitor when the proxy is gone or its session cannot open one.
     * With {@code transport.proxyProtocolVersion} the provider's stream starts with a PROXY header
     * naming {@code visitorConn}'s addresses (the visitor client's connection to this server). Any
     * thread.
     */
    public void connect(Provider provider, String source, StreamSplice.Side visitor, String who, Channel visitorConn) {
        provider.session().link().eventLoop().execute(() -> {
            MuxStream stream = providers.get(provider.qualified()) == provider
                    ? provider.session().link().openStream(provider.ref(), source) : null;
            if (stream == null) {
                log.warn("{} to {} refused: its client is disconnecting or at transport.maxStreamsPerClient", who,
                        provider);
                StreamSplice.refuse(visitor, ResetCode.VISITOR_NO_SUCH_PROXY);
                return;
            }
            if (provider.ref().proxyProtocol() != null) { // stcp: as frp, the visitor client's connection to the server
                stream.write(ProxyProtocolHeader.encode(provider.ref().proxyProtocol(), visitorConn.remoteAddress(),
                        visitorConn.localAddress()));
            }
            StreamSplice.connect(visitor, new StreamSplice.Side(stream, provider.session().link().eventLoop(), null));
        });
    }
}
