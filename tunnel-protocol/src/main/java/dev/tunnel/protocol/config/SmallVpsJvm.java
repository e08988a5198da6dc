package dev.tunnel.protocol.config;

/**
 * The JVM flags recommended for a 1 GB VPS, in one place: both jars print them in {@code --help},
 * the README section "Running on a 1 GB VPS" gives the figures measured with them, and
 * {@code bench/compare.sh} launches its "small JVM" column with exactly these (a test checks
 * both files).
 */
public final class SmallVpsJvm {

    /** The flags, space-separated. */
    public static final String FLAGS = "-Xms8m -Xmx128m -Xmn2m -XX:MaxDirectMemorySize=64m -XX:+UseSerialGC -Xss512k"
            + " -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=64m -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1"
            + " -Dio.netty.jfr.enabled=false";

    /** {@code --help} footer lines before the command line. */
    public static final String HELP_HEADING = "On a 1 GB VPS, cap the JVM (README \"Running on a 1 GB VPS\": measured RSS and throughput):";
    public static final String HELP_LINE_1 = "  java -Xms8m -Xmx128m -Xmn2m -XX:MaxDirectMemorySize=64m -XX:+UseSerialGC -Xss512k \\";
    public static final String HELP_LINE_2 = "       -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=64m -XX:TieredStopAtLevel=1 \\";
    public static final String HELP_LINE_3 = "       -XX:CICompilerCount=1 -Dio.netty.jfr.enabled=false \\";

    private SmallVpsJvm() {
    }
}
