package dev.tunnel.protocol.testing;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty's leak detector (paranoid in the build) reported a buffer that
 * was garbage-collected without being released. Registered for every test class through
 * JUnit's extension auto-detection. After the class, it forces collections and allocations so
 * the detector drains its queue, then checks what it reported.
 */
public final class LeakGuard implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
            ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(16);
            ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(16);
            a.release();
            b.release();
        }
        List<String> leaks = new ArrayList<>(LeakRecordingAppender.LEAKS);
        LeakRecordingAppender.LEAKS.clear();
        if (!leaks.isEmpty()) {
            fail(leaks.size() + " buffer leak(s) reported during " + context.getDisplayName() + ":\n"
                    + String.join("\n\n", leaks));
        }
    }
}
