package dev.tunnel.server.proxy.tcp;

import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.RunningProxy;
import io.netty.util.concurrent.Future;
import dev.tunnel.server.inbound.TrustedSources;
import java.util.HashMap;
import java.util.Map;

/**
 * The server's tcp load-balancing groups ({@code loadBalancer.group}), by name, across every
 * client and user as in frp: the first proxy of a group opens its public port, the others join
 * with the same {@code groupKey} and {@code remotePort}, and the port closes when the last one
 * leaves.
 *
 * <p>Threading: any session loop; the map is guarded by this object, each group by itself.
 */
final class TcpGroups {
    private final Map<String, TcpGroup> groups = new HashMap<>();
    private final TrustedSources trust;

    /** @param trust the balancers whose PROXY header the groups' ports read */
    TcpGroups(TrustedSources trust) {
        this.trust = trust;
    }

    /** Starts {@code request} as a member of group {@code name}, opening the group if it is new. */
    Future<RunningProxy> join(String name, String key, int remotePort, ProxyRequest request, ProxySession session) {
        while (true) {
            TcpGroup group;
            boolean opener = false;
            synchronized (this) {
                group = groups.get(name);
                if (group == null) {
                    group = new TcpGroup(name, key, remotePort, this, trust);
                    groups.put(name, group);
                    opener = true;
                }
            }
            Future<RunningProxy> joined = opener ? group.open(request, session) : group.join(key, remotePort, request, session);
            if (joined != null) {
                return joined;
            }
            // the group closed between the lookup and the join: look again
        }
    }

    /** Forgets {@code group} (closed: its last member left, or its port could not open). */
    synchronized void remove(TcpGroup group) {
        groups.remove(group.name(), group);
    }

    /** Groups open or opening now (tests). */
    synchronized int size() {
        return groups.size();
    }
}
