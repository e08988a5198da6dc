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

    /**
     * Why a connect to {@code target} failed: "connection refused by HOST:PORT" when nothing
     * listens there (epoll's {@code finishConnect(..) failed with error(-111)}, NIO's
     * {@code Connection refused}), else {@link #describe}.
     */
    public static String describeConnect(Throwable cause, String target) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof io.netty.channel.unix.Errors.NativeIoException e && e.expectedErr() == ECONNREFUSED_NEGATIVE
                    || t instanceof java.net.ConnectException && String.valueOf(t.getMessage()).contains("Connection refused")) {
                return "connection refused by " + target;
            }
        }
        return describe(cause);
    }

    /** -ECONNREFUSED on the Linux architectures Netty ships epoll natives for. */
    private static final int ECONNREFUSED_NEGATIVE = -111;
}
