package dev.tunnel.protocol.transport;

import java.util.List;

/**
 * The values of {@code transport.ioUring}, apart from {@link Transports} so that checking a
 * config ({@code verify}) does not load Netty's native transports: {@link Transports} probes
 * them when its class initialises, and Netty logs that probe before the log set-up has run.
 */
public final class IoUringSetting {
    /** The values of {@code transport.ioUring}. */
    public static final List<String> VALUES = List.of("auto", "on", "off");

    private IoUringSetting() {
    }
}
