package dev.tunnel.client;

import dev.tunnel.runtime.CommandLineContract;

/** tunnel-client's exit codes and messages (the shared contract). */
class ClientMainTest extends CommandLineContract {
    ClientMainTest() {
        super(ClientMain::new, "tunnel-client", "serverAddr = \"127.0.0.1\"\nauth.token = \"x\"\n",
                "serverPort = 70000\nserverAdr = \"x\"\n", "serverPort", "70000", "did you mean \"serverAddr\"");
    }
}
