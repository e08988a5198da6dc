package dev.tunnel.client;

import dev.tunnel.protocol.auth.PakeMode;
import dev.tunnel.protocol.auth.PakeWorker;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The client's {@code auth.pake} and what it learnt about its server: a server that closed the
 * connection on a PAKE hello, or refused it without listing the PAKE login, lacks it, and with
 * {@code "preferred"} the next connections log in with the token login (for the life of the
 * process). With {@code "required"} they keep trying the PAKE login and fail.
 *
 * <p>Thread-safe: set on the loop of the connection that found out, read when the next starts.
 */
final class ClientPake {
    private final PakeMode mode;
    private final AtomicBoolean serverLacksIt = new AtomicBoolean();

    /** With the PAKE login on, starts computing the client's scalars, so the first login finds its {@code x·P} ready. */
    ClientPake(PakeMode mode) {
        this.mode = mode;
        if (mode != PakeMode.OFF) {
            PakeWorker.shared().clientEphemerals().refill();
        }
    }

    PakeMode mode() {
        return mode;
    }

    /** Whether the next login starts with a PAKE hello. */
    boolean useNext() {
        return mode == PakeMode.REQUIRED || mode == PakeMode.PREFERRED && !serverLacksIt.get();
    }

    /**
     * The server lacks the PAKE login: what the client does about it, for the log.
     */
    String serverLacksIt() {
        if (mode == PakeMode.REQUIRED) {
            return "auth.pake = \"required\" here, so this client does not log in with the token login";
        }
        serverLacksIt.set(true);
        return "logging in with the token login from now on (auth.pake = \"preferred\"; set \"required\" to refuse that)";
    }
}
