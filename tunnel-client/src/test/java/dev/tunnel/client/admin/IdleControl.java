package dev.tunnel.client.admin;

import java.util.List;

/** A client with no proxies that ignores stop: for tests of the admin API's guards rather than its answers. */
public final class IdleControl implements AdminControl {
    @Override
    public List<ProxyState> status() {
        return List.of();
    }

    @Override
    public void stop() {
        // nothing runs
    }
}
