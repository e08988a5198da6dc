package dev.tunnel.client.config;

import java.util.ArrayList;
import java.util.List;

/** TEMPORARY stand-in until the config loader lands (same public fields). */
public class ClientConfig {
    public String serverAddr = "127.0.0.1";
    public int serverPort = 7000;
    public boolean loginFailExit = true;
    public Auth auth = new Auth();
    public Transport transport = new Transport();
    public Log log = new Log();
    public List<ProxyConfig> proxies = new ArrayList<>();

    public static class Auth {
        public String method = "token";
        public String token = "";
    }

    public static class Transport {
        public String protocol = "tcp";
        public int dialServerTimeout = 10;
        public boolean tcpMux = true;
        public int tcpMuxKeepaliveInterval = 30;
        public int poolCount = 1;
        public int heartbeatInterval = 30;
        public int heartbeatTimeout = 90;
        public Tls tls = new Tls();
        public int tcpMuxInitialWindow = 262144;
        public int tcpMuxMaxWindow = 16777216;
        public int sendBufferSize = 0;
        public int receiveBufferSize = 0;
    }

    public static class Tls {
        public boolean enable = true;
        public String certFile;
        public String keyFile;
        public String trustedCaFile;
        public String serverName;
    }

    public static class Log {
        public String level = "info";
        public String to = "console";
    }
}
