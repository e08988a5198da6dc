package dev.tunnel.server;

import dev.tunnel.runtime.CommandLineContract;

/** tunnel-server's exit codes and messages (the shared contract). */
class ServerMainTest extends CommandLineContract {
    ServerMainTest() {
        super(ServerMain::new, "tunnel-server", "bindPort = 7000\nauth.token = \"x\"\n",
                "bindPort = 70000\nbindAdr = \"0.0.0.0\"\n", "bindPort", "70000", "did you mean \"bindAddr\"");
    }
}
