package dev.tunnel.server.config;

import java.util.ArrayList;
import java.util.List;

/** TEMPORARY stand-in until the config loader lands (same public fields). */
public class ServerConfig {
    public String bindAddr = "0.0.0.0";
    public int bindPort = 7000;
    public String proxyBindAddr;
    public int userConnTimeout = 10;
    public int maxPortsPerClient = 0;
    public Auth auth = new Auth();
    public Transport transport = new Transport();
    public List<PortRange> allowPorts = new ArrayList<>();
    public Log log = new Log();

    public String effectiveProxyBindAddr() {
        return proxyBindAddr == null || proxyBindAddr.isEmpty() ? bindAddr : proxyBindAddr;
    }

    public boolean isPortAllowed(int port) {
        return allowPorts.isEmpty() || allowPorts.stream().anyMatch(r -> r.contains(port));
    }

    public static class Auth {
        public String method = "token";
        public String token = "";
    }

    public static class Transport {
        public boolean tcpMux = true;
        public int tcpMuxKeepaliveInterval = 30;
        public int heartbeatTimeout = 90;
        public int maxPoolCount = 5;
        public Tls tls = new Tls();
        public int tcpMuxInitialWindow = 262144;
        public int tcpMuxMaxWindow = 16777216;
        public int sendBufferSize = 0;
        public int receiveBufferSize = 0;
    }

    public static class Tls {
        public boolean force = false;
        public String certFile;
        public String keyFile;
        public String trustedCaFile;
    }

    public static class PortRange {
        public Integer start;
        public Integer end;
        public Integer single;

        public boolean contains(int port) {
            return single != null ? single == port : start <= port && port <= end;
        }
    }

    public static class Log {
        public String level = "info";
        public String to = "console";
    }
}
