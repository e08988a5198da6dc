package dev.tunnel.protocol;

import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.Goodbye;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.ControlMessage.NewWorkConn;
import dev.tunnel.protocol.ControlMessage.PakeChallenge;
import dev.tunnel.protocol.ControlMessage.PakeHello;
import dev.tunnel.protocol.ControlMessage.PakeShare;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.Pong;
import dev.tunnel.protocol.ControlMessage.ReqWorkConn;
import dev.tunnel.protocol.ControlMessage.StartWorkConn;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Binary encoding of {@link ControlMessage}s: a kind byte, then the fields in record order.
 * Integers are big-endian, booleans one byte, strings a u16 length and UTF-8 bytes, string lists
 * (capabilities) a u16 count and the strings, {@link Options} a u16 count and each key and value.
 * Decoding checks every length and count against its maximum and what is left, and rejects
 * trailing bytes and an option key sent twice.
 */
public final class ControlCodec {
    static final int LOGIN = 1;
    static final int LOGIN_RESULT = 2;
    static final int NEW_PROXY = 3;
    static final int NEW_PROXY_RESULT = 4;
    static final int CLOSE_PROXY = 5;
    static final int PING = 6;
    static final int PONG = 7;
    static final int CHALLENGE = 8;
    static final int REQ_WORK_CONN = 9;
    static final int NEW_WORK_CONN = 10;
    static final int START_WORK_CONN = 11;
    static final int GOODBYE = 12;
    // kind 13 is reserved (an earlier release's JOIN_LANE): never reuse it
    /** {@link ReqWorkConn} with nonces: sent only to a client that listed {@link Capabilities#ISSUED_NONCES}. */
    static final int REQ_WORK_CONN_ISSUED = 14;
    /** {@link NewWorkConn} answering an issued nonce: sent only to a server that issued it. */
    static final int NEW_WORK_CONN_ISSUED = 15;
    // kinds 16 and 17 are reserved (an unreleased SRP-6a login's hello and challenge): never reuse them
    /** {@link PakeHello}: a server that predates it closes the connection (unknown kind). */
    static final int PAKE_HELLO = 18;
    /** {@link PakeChallenge}: sent only in answer to a {@link PakeHello}. */
    static final int PAKE_CHALLENGE = 19;
    /** {@link PakeShare}: sent only in answer to a {@link PakeChallenge}. */
    static final int PAKE_SHARE = 20;

    /** Longest string field accepted, in bytes. */
    public static final int MAX_STRING = 4096;

    private ControlCodec() {
    }

    public static void encode(ControlMessage message, ByteBuf out) {
        if (message instanceof Login m) {
            out.writeByte(LOGIN);
            writeString(out, m.clientVersion());
            writeString(out, m.hostname());
            writeString(out, m.runId());
            out.writeLong(m.timestampMillis());
            writeString(out, m.nonce());
            writeString(out, m.proof());
            out.writeBoolean(m.tcpMux());
            out.writeInt(m.poolCount());
            out.writeInt(m.initialWindow());
            writeString(out, m.user());
            writeString(out, m.serverCertificate());
            writeStrings(out, m.capabilities());
            writeOptions(out, m.options());
        } else if (message instanceof LoginResult m) {
            out.writeByte(LOGIN_RESULT);
            out.writeInt(m.code());
            writeString(out, m.error());
            writeString(out, m.serverVersion());
            writeString(out, m.sessionId());
            out.writeInt(m.initialWindow());
            writeString(out, m.serverProof());
            writeStrings(out, m.capabilities());
            writeOptions(out, m.options());
        } else if (message instanceof NewProxy m) {
            out.writeByte(NEW_PROXY);
            out.writeInt(m.proxyId());
            writeString(out, m.name());
            writeString(out, m.type());
            writeOptions(out, m.options());
        } else if (message instanceof NewProxyResult m) {
            out.writeByte(NEW_PROXY_RESULT);
            out.writeInt(m.proxyId());
            writeString(out, m.name());
            out.writeInt(m.remotePort());
            writeString(out, m.error());
            writeOptions(out, m.details());
        } else if (message instanceof CloseProxy m) {
            out.writeByte(CLOSE_PROXY);
            out.writeInt(m.proxyId());
            writeString(out, m.name());
        } else if (message instanceof Ping m) {
            out.writeByte(PING);
            out.writeLong(m.payload());
        } else if (message instanceof Pong m) {
            out.writeByte(PONG);
            out.writeLong(m.payload());
        } else if (message instanceof Challenge m) {
            out.writeByte(CHALLENGE);
            writeString(out, m.serverNonce());
        } else if (message instanceof ReqWorkConn m && m.nonces().isEmpty()) {
            out.writeByte(REQ_WORK_CONN);
            out.writeInt(m.count());
        } else if (message instanceof ReqWorkConn m) {
            out.writeByte(REQ_WORK_CONN_ISSUED);
            writeStrings(out, m.nonces());
        } else if (message instanceof NewWorkConn m) {
            out.writeByte(m.answersIssuedNonce() ? NEW_WORK_CONN_ISSUED : NEW_WORK_CONN);
            writeString(out, m.sessionId());
            out.writeLong(m.timestampMillis());
            writeString(out, m.nonce());
            writeString(out, m.proof());
            if (m.answersIssuedNonce()) {
                writeString(out, m.issuedNonce());
            }
        } else if (message instanceof StartWorkConn m) {
            out.writeByte(START_WORK_CONN);
            out.writeInt(m.proxyId());
            writeString(out, m.source());
        } else if (message instanceof PakeHello m) {
            out.writeByte(PAKE_HELLO);
            writeString(out, m.user());
            writeString(out, m.salt());
            writeString(out, m.clientShare());
        } else if (message instanceof PakeChallenge m) {
            out.writeByte(PAKE_CHALLENGE);
            writeString(out, m.salt());
            writeString(out, m.serverShare());
        } else if (message instanceof PakeShare m) {
            out.writeByte(PAKE_SHARE);
            writeString(out, m.clientShare());
        } else if (message instanceof Goodbye m) {
            out.writeByte(GOODBYE);
            writeString(out, m.reason());
        } else {
            throw new IllegalArgumentException("unknown control message " + message);
        }
    }

    /** Decodes exactly the readable bytes of {@code in} into one message. */
    public static ControlMessage decode(ByteBuf in) {
        if (!in.isReadable()) {
            throw new ProtocolException("empty control frame");
        }
        int kind = in.readUnsignedByte();
        ControlMessage message = switch (kind) {
            case LOGIN -> new Login(readString(in), readString(in), readString(in), readLong(in),
                    readString(in), readString(in), readBoolean(in), readInt(in), readInt(in), readString(in),
                    readString(in), readStrings(in), readOptions(in));
            case LOGIN_RESULT -> new LoginResult(readInt(in), readString(in), readString(in), readString(in),
                    readInt(in), readString(in), readStrings(in), readOptions(in));
            case NEW_PROXY -> new NewProxy(readInt(in), readString(in), readString(in), readOptions(in));
            case NEW_PROXY_RESULT -> new NewProxyResult(readInt(in), readString(in), readInt(in), readString(in),
                    readOptions(in));
            case CLOSE_PROXY -> new CloseProxy(readInt(in), readString(in));
            case PING -> new Ping(readLong(in));
            case PONG -> new Pong(readLong(in));
            case CHALLENGE -> new Challenge(readString(in));
            case REQ_WORK_CONN -> new ReqWorkConn(readInt(in));
            case NEW_WORK_CONN -> new NewWorkConn(readString(in), readLong(in), readString(in), readString(in));
            case REQ_WORK_CONN_ISSUED -> ReqWorkConn.issued(readIssuedNonces(in));
            case NEW_WORK_CONN_ISSUED -> new NewWorkConn(readString(in), readLong(in), readString(in), readString(in),
                    readNonEmpty(in, "issued nonce"));
            case START_WORK_CONN -> new StartWorkConn(readInt(in), readString(in));
            case GOODBYE -> new Goodbye(readString(in));
            case PAKE_HELLO -> new PakeHello(readString(in), readString(in), readString(in));
            case PAKE_CHALLENGE -> new PakeChallenge(readString(in), readString(in));
            case PAKE_SHARE -> new PakeShare(readString(in));
            default -> throw new ProtocolException("unknown control message kind " + kind);
        };
        if (in.isReadable()) {
            throw new ProtocolException("control message kind " + kind + " has " + in.readableBytes()
                    + " trailing bytes");
        }
        return message;
    }

    /** A u16 count, then each string. */
    static void writeStrings(ByteBuf out, List<String> list) {
        if (list.size() > Capabilities.MAX_COUNT) {
            throw new IllegalArgumentException(list.size() + " strings exceed maximum " + Capabilities.MAX_COUNT);
        }
        out.writeShort(list.size());
        for (String s : list) {
            writeString(out, s);
        }
    }

    static List<String> readStrings(ByteBuf in) {
        int count = readUnsignedShort(in);
        if (count > Capabilities.MAX_COUNT) {
            throw new ProtocolException("list of " + count + " strings exceeds maximum " + Capabilities.MAX_COUNT);
        }
        List<String> list = new ArrayList<>(Math.min(count, 16));
        for (int i = 0; i < count; i++) {
            list.add(readString(in));
        }
        return list;
    }

    /** The nonces of a {@code REQ_WORK_CONN_ISSUED}: at least one, none empty. */
    private static List<String> readIssuedNonces(ByteBuf in) {
        List<String> nonces = readStrings(in);
        if (nonces.isEmpty() || nonces.contains("")) {
            throw new ProtocolException("work connection request with " + nonces.size()
                    + " nonces, some empty (expected: at least one, none empty)");
        }
        return nonces;
    }

    private static String readNonEmpty(ByteBuf in, String what) {
        String s = readString(in);
        if (s.isEmpty()) {
            throw new ProtocolException(what + " is empty");
        }
        return s;
    }

    /** A u16 count, then each key and value as strings. */
    static void writeOptions(ByteBuf out, Options options) {
        out.writeShort(options.size());
        for (Map.Entry<String, String> e : options.asMap().entrySet()) {
            writeString(out, e.getKey());
            writeString(out, e.getValue());
        }
    }

    static Options readOptions(ByteBuf in) {
        int count = readUnsignedShort(in);
        if (count > Options.MAX_ENTRIES) {
            throw new ProtocolException("options of " + count + " entries exceed maximum " + Options.MAX_ENTRIES);
        }
        if (count == 0) {
            return Options.EMPTY;
        }
        Options.Builder options = Options.builder();
        for (int i = 0; i < count; i++) {
            String key = readString(in);
            String value = readString(in);
            if (key.isEmpty() || key.length() > Options.MAX_KEY) {
                throw new ProtocolException("option key of " + key.length() + " characters (expected: 1-"
                        + Options.MAX_KEY + ")");
            }
            if (options.has(key)) {
                throw new ProtocolException("option " + key + " sent twice");
            }
            options.put(key, value);
        }
        return options.build();
    }

    static void writeString(ByteBuf out, String s) {
        int lengthIndex = out.writerIndex();
        out.writeShort(0);
        int length = ByteBufUtil.writeUtf8(out, s);
        if (length > MAX_STRING) {
            throw new IllegalArgumentException("string of " + length + " bytes exceeds maximum " + MAX_STRING);
        }
        out.setShort(lengthIndex, length);
    }

    static String readString(ByteBuf in) {
        int length = readUnsignedShort(in);
        if (length > MAX_STRING) {
            throw new ProtocolException("string of " + length + " bytes exceeds maximum " + MAX_STRING);
        }
        need(in, length);
        String s = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        return s;
    }

    private static int readUnsignedShort(ByteBuf in) {
        need(in, 2);
        return in.readUnsignedShort();
    }

    private static int readInt(ByteBuf in) {
        need(in, 4);
        return in.readInt();
    }

    private static long readLong(ByteBuf in) {
        need(in, 8);
        return in.readLong();
    }

    private static boolean readBoolean(ByteBuf in) {
        need(in, 1);
        byte b = in.readByte();
        if (b != 0 && b != 1) {
            throw new ProtocolException("boolean field has value " + b);
        }
        return b == 1;
    }

    private static void need(ByteBuf in, int bytes) {
        if (in.readableBytes() < bytes) {
            throw new ProtocolException("control message truncated: needed " + bytes + " more bytes, "
                    + in.readableBytes() + " left");
        }
    }
}
