package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryLimitsTest {
  static final String LIMIT = MemoryLimits.LIMIT;
  static final String MEMSW = MemoryLimits.MEMSW;

  @Test
  void raisesMemswFirstAndLowersItLast() {
    assertEquals(List.of(MEMSW, LIMIT), MemoryLimits.order(64 << 20, 128 << 20));
    assertEquals(List.of(LIMIT, MEMSW), MemoryLimits.order(128 << 20, 64 << 20));
    assertEquals(List.of(LIMIT, MEMSW), MemoryLimits.order(64 << 20, 64 << 20));
  }

  @Test
  void everyStepKeepsMemswAtOrAboveTheLimit(@TempDir Path tmp) throws IOException {
    FakeKernel kernel = new FakeKernel(tmp);
    Files.writeString(tmp.resolve(LIMIT), FakeTree.MAX);
    Files.writeString(tmp.resolve(MEMSW), FakeTree.MAX);
    // the fake refuses a write that would put memsw below the limit, as the kernel does
    assertThrows(IOException.class, () -> kernel.write(tmp.resolve(MEMSW), "1024"));
    kernel.writes.clear();

    MemoryLimits.apply(kernel, tmp, 64 << 20);
    MemoryLimits.apply(kernel, tmp, 128 << 20);
    MemoryLimits.apply(kernel, tmp, 32 << 20);

    assertEquals(
        List.of(
            LIMIT + "=67108864",
            MEMSW + "=67108864",
            MEMSW + "=134217728",
            LIMIT + "=134217728",
            LIMIT + "=33554432",
            MEMSW + "=33554432"),
        kernel.writes);
  }

  @Test
  void withoutSwapAccountingOnlyTheLimitIsSet(@TempDir Path tmp) throws IOException {
    FakeKernel kernel = new FakeKernel(tmp);
    Files.writeString(tmp.resolve(LIMIT), FakeTree.MAX);
    MemoryLimits.apply(kernel, tmp, 64 << 20);
    assertEquals(List.of(LIMIT + "=67108864"), kernel.writes);
    assertFalse(Files.exists(tmp.resolve(MEMSW)), "no memsw file was made");
  }
}
