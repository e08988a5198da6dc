package dev.tunnel.server.proxy;

/** A proxy could not start; the message goes to the client as is (key, value, what is allowed). */
public final class ProxyRefusedException extends Exception {
    public ProxyRefusedException(String message) {
        super(message, null, false, false);
    }
}
