package dev.tunnel.runtime;

/**
 * The JVM flags recommended for a 1 GB VPS, in one place: both jars print them in {@code --help},
 * the README section "Running on a 1 GB VPS" recommends them (docs/performance.md has the
 * figures measured with them), and
 * {@code bench/compare.sh} launches its "small JVM" column with exactly these (a test checks
 * both files).
 */
public final class SmallVpsJvm {

    /** The flags, space-separated. */
    public static final String FLAGS = "-Xms8m -Xmx128m -Xmn2m -XX:MaxDirectMemorySize=64m -XX:+UseSerialGC -Xss512k"
            + " -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=64m -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1"
            + " -Dio.netty.jfr.enabled=false";

    /** {@code --help} footer lines before the {@code -jar} line; each fits picocli's 80 columns. */
    public static final String HELP_HEADING = "On a 1 GB VPS, cap the JVM (figures: docs/performance.md):";
    public static final String HELP_LINE_1 = "  java -Xms8m -Xmx128m -Xmn2m -XX:MaxDirectMemorySize=64m -XX:+UseSerialGC \\";
    public static final String HELP_LINE_2 = "       -Xss512k -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=64m \\";
    public static final String HELP_LINE_3 = "       -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 \\";
    public static final String HELP_LINE_4 = "       -Dio.netty.jfr.enabled=false \\";

    private SmallVpsJvm() {
    }
}
