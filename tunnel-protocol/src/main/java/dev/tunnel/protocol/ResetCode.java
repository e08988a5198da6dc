package dev.tunnel.protocol;

/** Why a stream was reset; carried as a u32 in {@link ResetFrame}. */
public final class ResetCode {
    /** One side's socket closed or failed before the stream finished. */
    public static final int CANCEL = 1;
    /** The client could not connect to the local app. */
    public static final int CONNECT_FAILED = 2;
    /** The peer sent more than its window allowed. */
    public static final int FLOW_CONTROL_ERROR = 3;
    /** The peer sent a frame that makes no sense for the stream's state. */
    public static final int PROTOCOL_ERROR = 4;
    /** No such proxy, or the receiver refuses new streams. */
    public static final int REFUSED = 5;
    /** The tunnel session ended. */
    public static final int SESSION_CLOSED = 6;

    private ResetCode() {
    }

    public static String name(int code) {
        return switch (code) {
            case CANCEL -> "CANCEL";
            case CONNECT_FAILED -> "CONNECT_FAILED";
            case FLOW_CONTROL_ERROR -> "FLOW_CONTROL_ERROR";
            case PROTOCOL_ERROR -> "PROTOCOL_ERROR";
            case REFUSED -> "REFUSED";
            case SESSION_CLOSED -> "SESSION_CLOSED";
            default -> "CODE_" + code;
        };
    }
}
