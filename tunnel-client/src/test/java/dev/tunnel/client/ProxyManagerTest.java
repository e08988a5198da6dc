package dev.tunnel.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.Options;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client's proxies: stable ids, and exactly the messages a live session needs for each change. */
@Timeout(10)
class ProxyManagerTest {
    private final ProxyManager proxies = new ProxyManager(ClientProxyTypes.standard(), null);
    private final EmbeddedChannel control = new EmbeddedChannel();

    @Test
    void aLoginRegistersEveryProxyInIdOrder() throws Exception {
        proxies.add(proxy("ssh", 22, 6000));
        proxies.add(proxy("web", 80, 0));
        assertThat(proxies.beginSession(control)).containsExactly(
                new NewProxy(1, "ssh", "tcp", Options.of("remotePort", "6000")),
                new NewProxy(2, "web", "tcp", Options.of("remotePort", "0")));
        assertThat(sent()).as("the login batch is the caller's to write").isEmpty();
    }

    @Test
    void changesOnALiveSessionAreSentAtOnceUnderStableIds() throws Exception {
        proxies.add(proxy("ssh", 22, 6000));
        proxies.beginSession(control);

        proxies.add(proxy("web", 80, 0));
        proxies.update(proxy("ssh", 2222, 6001));
        assertThat(proxies.remove("web")).isTrue();
        assertThat(sent()).containsExactly(
                new NewProxy(2, "web", "tcp", Options.of("remotePort", "0")),
                new CloseProxy(1, "ssh"),
                new NewProxy(1, "ssh", "tcp", Options.of("remotePort", "6001")),
                new CloseProxy(2, "web"));
        assertThat(proxies.get(1).dialer().describe()).endsWith(":2222");
        assertThat(proxies.get(2)).as("removed").isNull();
    }

    @Test
    void betweenSessionsChangesWaitForTheNextLogin() throws Exception {
        proxies.beginSession(control);
        proxies.sessionEnded(control);
        proxies.add(proxy("ssh", 22, 6000));
        assertThat(sent()).isEmpty();
        assertThat(proxies.beginSession(new EmbeddedChannel())).extracting(NewProxy::name).containsExactly("ssh");
    }

    @Test
    void namesAreUniqueAndTypesKnown() throws Exception {
        proxies.add(proxy("ssh", 22, 6000));
        assertThatThrownBy(() -> proxies.add(proxy("ssh", 23, 0))).hasMessage("proxy [ssh] already exists");
        assertThatThrownBy(() -> proxies.update(proxy("nope", 23, 0))).hasMessage("proxy [nope] does not exist");
        ProxyConfig xtcp = proxy("p2p", 22, 0);
        xtcp.type = "xtcp";
        assertThatThrownBy(() -> proxies.add(xtcp))
                .hasMessage("proxy [p2p]: type \"xtcp\" is not supported (supported: tcp, udp, http, https, stcp, sudp, tcpmux)");
        assertThat(proxies.remove("nope")).isFalse();
    }

    private List<ControlMessage> sent() {
        List<ControlMessage> out = new ArrayList<>();
        Object m;
        while ((m = control.readOutbound()) != null) {
            out.add(((ControlFrame) m).message());
        }
        return out;
    }

    private static ProxyConfig proxy(String name, int localPort, int remotePort) {
        ProxyConfig p = new ProxyConfig();
        p.name = name;
        p.localPort = localPort;
        p.remotePort = remotePort;
        return p;
    }
}
