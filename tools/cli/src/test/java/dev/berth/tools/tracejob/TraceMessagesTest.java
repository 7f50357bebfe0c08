package dev.berth.tools.tracejob;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Event;
import dev.berth.proto.JobExited;
import dev.berth.proto.ResourcesUsed;
import dev.berth.tools.testing.SampleJobs;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lines of one event that the life of a job in TracejobTest does not show. */
class TraceMessagesTest {
  @Test
  void aJobTheKernelKilledForMemoryShowsHowOften() {
    Event exited =
        Event.newBuilder()
            .setJobExited(
                JobExited.newBuilder()
                    .setJobId("12.srv")
                    .setExitStatus(-10)
                    .setResourcesUsed(
                        ResourcesUsed.newBuilder().setCput(3).setWalltime(4).setOomKills(2)))
            .build();
    assertEquals(
        List.of(
            "Exit_status=-10 resources_used.cput=00:00:03 resources_used.mem=0kb"
                + " resources_used.vmem=0kb resources_used.walltime=00:00:04"
                + " resources_used.oom_kills=2"),
        TraceMessages.server(exited, SampleJobs.running().build()));
  }
}
