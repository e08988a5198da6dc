package dev.tunnel.protocol.transport;

/** Turns a failure into the words a log line needs: never "null" for an exception without a message. */
public final class Failures {
    private Failures() {
    }

    /**
     * The cause's message, or its class's simple name when it has none (Netty's ClosedChannelException,
     * say); "no such file" for a FileNotFoundException without one.
     */
    public static String describe(Throwable cause) {
        if (cause == null) {
            return "unknown failure";
        }
        String message = cause.getMessage();
        if ((message == null || message.isBlank()) && cause instanceof java.io.FileNotFoundException) {
            return "no such file"; // what epoll says for a Unix socket path that does not exist
        }
        return message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    }
}
