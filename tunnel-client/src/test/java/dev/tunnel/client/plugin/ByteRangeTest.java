package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 5, unit = TimeUnit.SECONDS)
class ByteRangeTest {

    @Test
    void parsesTheThreeForms() {
        assertThat(ByteRange.parse("bytes=10-19", 100)).isEqualTo(new ByteRange(10, 19));
        assertThat(ByteRange.parse("bytes=90-", 100)).isEqualTo(new ByteRange(90, 99));
        assertThat(ByteRange.parse("bytes=-5", 100)).isEqualTo(new ByteRange(95, 99));
        assertThat(ByteRange.parse("bytes=-500", 100)).isEqualTo(new ByteRange(0, 99));
        assertThat(ByteRange.parse("bytes=50-500", 100)).isEqualTo(new ByteRange(50, 99));
    }

    @Test
    void unsatisfiablePastTheEnd() {
        assertThat(ByteRange.parse("bytes=100-", 100)).isSameAs(ByteRange.UNSATISFIABLE);
        assertThat(ByteRange.parse("bytes=-0", 100)).isSameAs(ByteRange.UNSATISFIABLE);
        assertThat(ByteRange.parse("bytes=0-0", 0)).isSameAs(ByteRange.UNSATISFIABLE);
    }

    @Test
    void ignoredWhenAbsentMalformedOrMultiple() {
        assertThat(ByteRange.parse(null, 100)).isNull();
        assertThat(ByteRange.parse("items=1-2", 100)).isNull();
        assertThat(ByteRange.parse("bytes=5-1", 100)).isNull();
        assertThat(ByteRange.parse("bytes=a-b", 100)).isNull();
        assertThat(ByteRange.parse("bytes=0-1,5-6", 100)).isNull();
        assertThat(ByteRange.parse("bytes=99999999999999999999-", 100)).isNull();
        assertThat(ByteRange.parse("bytes=+1-2", 100)).isNull();
    }
}
