package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.mom.os.ProcessLimits;
import dev.berth.proto.ResourceRequest;
import org.junit.jupiter.api.Test;

class JobLimitsTest {
  @Test
  void noTorqueLimitSetsNothing() {
    assertEquals(ProcessLimits.NONE, JobLimits.of(ResourceRequest.getDefaultInstance()));
  }

  @Test
  void eachTorqueResourceBecomesItsLimit() {
    ResourceRequest r =
        ResourceRequest.newBuilder()
            .setPcput(90)
            .setPvmem(1L << 30)
            .setPmem(100L << 20)
            .putValues("file", "1kb")
            .putValues("nice", "19")
            .build();
    assertEquals(new ProcessLimits(90, 1024, 1L << 30, 100L << 20, 19), JobLimits.of(r));
  }

  @Test
  void theAddressSpaceIsTheSmallerOfVmemAndPvmemButNotBelowPmem() {
    assertEquals(
        200L << 20,
        JobLimits.of(ResourceRequest.newBuilder().setVmem(200L << 20).setPvmem(1L << 30).build())
            .addressSpaceBytes());
    assertEquals(
        300L << 20,
        JobLimits.of(ResourceRequest.newBuilder().setVmem(300L << 20).build()).addressSpaceBytes());
    assertEquals(
        400L << 20,
        JobLimits.of(ResourceRequest.newBuilder().setPvmem(100L << 20).setPmem(400L << 20).build())
            .addressSpaceBytes());
  }

  @Test
  void aNiceValueTheServerNoLongerTakesRunsAtTheNearestOneAJobMayHave() {
    assertEquals(
        0, JobLimits.of(ResourceRequest.newBuilder().putValues("nice", "-5").build()).nice());
  }
}
