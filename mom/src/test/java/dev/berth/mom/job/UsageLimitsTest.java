package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.ProcessUsage.Sample;
import dev.berth.proto.ResourceRequest;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class UsageLimitsTest {
  private static final ResourceRequest ALL =
      ResourceRequest.newBuilder().setCput(10).setMem(100).setVmem(1000).build();

  @Test
  void aJobWithoutJobWideLimitsIsNotPolled() {
    assertFalse(UsageLimits.of(ResourceRequest.getDefaultInstance(), false).any());
    assertFalse(
        UsageLimits.of(ResourceRequest.newBuilder().setMem(100).build(), true).any(),
        "its cgroups hold its memory");
    assertTrue(UsageLimits.of(ResourceRequest.newBuilder().setMem(100).build(), false).any());
  }

  @Test
  void eachLimitIsKilledWithTorquesWordsAndExitStatus() {
    UsageLimits limits = UsageLimits.of(ALL, false);
    assertEquals(
        Optional.empty(), limits.over(new Sample(10, 100, 1000)), "at a limit is not over");
    assertEquals(
        Optional.of(new UsageLimits.Over("cput 11 exceeded limit 10", -12)),
        limits.over(new Sample(11, 0, 0)));
    assertEquals(
        Optional.of(new UsageLimits.Over("mem 101 exceeded limit 100", -10)),
        limits.over(new Sample(0, 101, 0)));
    assertEquals(
        Optional.of(new UsageLimits.Over("vmem 1001 exceeded limit 1000", -10)),
        limits.over(new Sample(0, 0, 1001)));
  }

  @Test
  void memHeldByCgroupsIsNotPolledButCputAndVmemAre() {
    UsageLimits limits = UsageLimits.of(ALL, true);
    assertEquals(Optional.empty(), limits.over(new Sample(0, 1 << 30, 0)));
    assertTrue(limits.over(new Sample(11, 0, 0)).isPresent());
    assertTrue(limits.over(new Sample(0, 0, 1001)).isPresent());
  }
}
