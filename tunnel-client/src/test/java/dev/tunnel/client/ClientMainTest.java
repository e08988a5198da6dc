package dev.tunnel.client;

import dev.tunnel.runtime.CommandLineContract;

/** tunnel-client's exit codes and messages (the shared contract). */
class ClientMainTest extends CommandLineContract {
    @Override
    protected Object command() {
        return new ClientMain();
    }

    @Override
    protected String name() {
        return "tunnel-client";
    }

    @Override
    protected String validConfig() {
        return "serverAddr = \"127.0.0.1\"\nauth.token = \"x\"\n";
    }

    @Override
    protected String invalidConfig() {
        return "serverPort = 70000\nserverAdr = \"x\"\n";
    }

    @Override
    protected String[] invalidConfigMentions() {
        return new String[] {"serverPort", "70000", "did you mean \"serverAddr\""};
    }
}
