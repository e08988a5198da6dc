package dev.tunnel.server;

import dev.tunnel.runtime.CommandLineContract;

/** tunnel-server's exit codes and messages (the shared contract). */
class ServerMainTest extends CommandLineContract {
    @Override
    protected Object command() {
        return new ServerMain();
    }

    @Override
    protected String name() {
        return "tunnel-server";
    }

    @Override
    protected String validConfig() {
        return "bindPort = 7000\nauth.token = \"x\"\n";
    }

    @Override
    protected String invalidConfig() {
        return "bindPort = 70000\nbindAdr = \"0.0.0.0\"\n";
    }

    @Override
    protected String[] invalidConfigMentions() {
        return new String[] {"bindPort", "70000", "did you mean \"bindAddr\""};
    }
}
