package dev.tunnel.runtime;

import io.netty.channel.unix.Errors;
import java.net.BindException;

/**
 * Recognizes a bind that failed because the address is in use, whichever transport reported
 * it: NIO throws {@link BindException}, but native epoll throws
 * {@link Errors.NativeIoException} ("bind(..) failed with error(-98): Address already in use"),
 * which is a plain {@code IOException}.
 */
public final class BindFailures {
    /** -EADDRINUSE on every Linux architecture Netty ships epoll natives for (x86_64, aarch64, riscv64). */
    private static final int EADDRINUSE_NEGATIVE = -98;

    private BindFailures() {
    }

    public static boolean addressInUse(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof BindException
                    || t instanceof Errors.NativeIoException e && e.expectedErr() == EADDRINUSE_NEGATIVE) {
                return true;
            }
        }
        return false;
    }
}
