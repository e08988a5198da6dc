package dev.tunnel.protocol;

/**
 * One unit on the wire after the {@link Preface}. Every frame starts with a 10-byte header:
 *
 * <pre>
 *  0        1        2                 6                 10
 *  +--------+--------+-----------------+-----------------+----------------
 *  |  type  | flags  | stream id (u32) | length (u32)    | payload ...
 *  +--------+--------+-----------------+-----------------+----------------
 * </pre>
 *
 * Control frames travel on stream 0; the others name a stream. See {@code docs/protocol.md}.
 */
public sealed interface Frame
        permits ControlFrame, OpenFrame, DataFrame, WindowUpdateFrame, ResetFrame {

    int HEADER_LENGTH = 10;

    byte TYPE_CONTROL = 0x01;
    byte TYPE_OPEN = 0x10;
    byte TYPE_DATA = 0x11;
    byte TYPE_WINDOW_UPDATE = 0x12;
    byte TYPE_RESET = 0x13;

    /** DATA flag, and OPEN flag with {@link #FLAG_DATA}: the sender will send nothing more on this stream (half-close). */
    byte FLAG_FIN = 0x01;
    /**
     * OPEN flag: the stream's first bytes follow the OPEN fields ({@link DataFrame#inOpen}); only to a
     * peer that listed {@link Capabilities#OPEN_DATA}.
     */
    byte FLAG_DATA = 0x02;

    /** The stream this frame belongs to; 0 for control frames. */
    int streamId();
}
