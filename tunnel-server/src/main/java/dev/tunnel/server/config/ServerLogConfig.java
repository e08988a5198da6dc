package dev.tunnel.server.config;

import dev.tunnel.runtime.LogConfig;
import dev.tunnel.runtime.LogSetup;
import dev.tunnel.server.proxy.ConnectionLog;

/** The server's {@code [log]} table: frp's keys, and {@code log.connections}. */
public class ServerLogConfig extends LogConfig {
    /**
     * One INFO line per public connection when it closes (a tunnel extension; frps logs each
     * user connection too); false leaves them out.
     */
    public boolean connections = true;

    @Override
    public void apply() {
        super.apply();
        LogSetup.enable(ConnectionLog.LOGGER, connections);
    }
}
