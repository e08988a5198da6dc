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
    /** A visitor's proof does not match the secret proxy's {@code secretKey}. */
    public static final int VISITOR_AUTH_FAILED = 7;
    /** No secret proxy of the visitor's type is registered under the name it asked for. */
    public static final int VISITOR_NO_SUCH_PROXY = 8;
    /** The secret proxy's {@code allowUsers} does not include the visitor's user. */
    public static final int VISITOR_NOT_ALLOWED = 9;
    /** Too many failed visitor proofs from the visitor's address; refused for a while. */
    public static final int VISITOR_THROTTLED = 10;
    /** The secret proxy's {@code allowIPs}, {@code denyIPs} or {@code maxNewConnsPerIPPerMinute} refused the visitor's address. */
    public static final int VISITOR_ADDRESS_REFUSED = 11;

    /** Whether {@code code} is the server refusing a visitor's stream (see {@link #visitorRefusal}). */
    public static boolean isVisitorRefusal(int code) {
        return code >= VISITOR_AUTH_FAILED && code <= VISITOR_ADDRESS_REFUSED;
    }

    /** What a visitor's log says when the server refused its stream with {@code code}. */
    public static String visitorRefusal(int code) {
        return switch (code) {
            case VISITOR_AUTH_FAILED -> "wrong secretKey";
            case VISITOR_NO_SUCH_PROXY -> "no such secret proxy on the server (check serverName, serverUser and type;"
                    + " is the provider's client connected?)";
            case VISITOR_NOT_ALLOWED -> "this user is not in the proxy's allowUsers";
            case VISITOR_THROTTLED -> "too many wrong secret keys from this address; refused for a while";
            case VISITOR_ADDRESS_REFUSED -> "the proxy's allowIPs, denyIPs or maxNewConnsPerIPPerMinute refused this"
                    + " client's address";
            default -> name(code);
        };
    }

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
            case VISITOR_AUTH_FAILED -> "VISITOR_AUTH_FAILED";
            case VISITOR_NO_SUCH_PROXY -> "VISITOR_NO_SUCH_PROXY";
            case VISITOR_NOT_ALLOWED -> "VISITOR_NOT_ALLOWED";
            case VISITOR_THROTTLED -> "VISITOR_THROTTLED";
            case VISITOR_ADDRESS_REFUSED -> "VISITOR_ADDRESS_REFUSED";
            default -> "CODE_" + code;
        };
    }
}
