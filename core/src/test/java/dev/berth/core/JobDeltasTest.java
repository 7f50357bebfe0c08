package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.berth.proto.Container;
import dev.berth.proto.Job;
import dev.berth.proto.JobDelta;
import dev.berth.proto.JobState;
import dev.berth.proto.Variable;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobDeltasTest {
  private static final Job PARENT =
      Job.newBuilder()
          .setId("1[].srv")
          .setName("sweep")
          .setState(JobState.QUEUED)
          .addVariables(Variable.newBuilder().setName("BIG").setValue("x".repeat(1000)))
          .putExtensions("umask", "022")
          .setContainer(Container.newBuilder().setImage("/img/a.sqsh"))
          .setArrayRequest("0-9")
          .build();

  @Test
  void aDeltaHoldsWhatDiffersAndApplyingItGivesTheJobBack() {
    Job subjob =
        PARENT.toBuilder()
            .setId("1[3].srv")
            .setState(JobState.HELD)
            .clearArrayRequest() // a field back to its default
            .clearContainer() // a message field unset
            .putExtensions("group_list", "staff") // a map, which goes whole
            .setExitStatus(0) // a field with presence, set to its default value
            .build();
    JobDelta delta = JobDeltas.between(PARENT, subjob);
    assertEquals(
        Job.newBuilder()
            .setId("1[3].srv")
            .setState(JobState.HELD)
            .putExtensions("umask", "022")
            .putExtensions("group_list", "staff")
            .setExitStatus(0)
            .build(),
        delta.getSet());
    assertEquals(
        Set.of(Job.CONTAINER_FIELD_NUMBER, Job.ARRAY_REQUEST_FIELD_NUMBER),
        Set.copyOf(delta.getClearedList()));
    Job back = JobDeltas.apply(PARENT, delta);
    assertEquals(subjob, back);
    assertSame(PARENT.getVariablesList(), back.getVariablesList(), "shared, not copied");
  }

  @Test
  void sameJobsMakeAnEmptyDelta() {
    assertEquals(
        JobDelta.newBuilder().setSet(Job.getDefaultInstance()).build(),
        JobDeltas.between(PARENT, PARENT.toBuilder().build()));
  }

  @Test
  void aClearedFieldOfANewerReleaseIsNothingToClear() {
    JobDelta newer =
        JobDelta.newBuilder().addCleared(9999).setSet(Job.newBuilder().setName("n")).build();
    assertEquals(PARENT.toBuilder().setName("n").build(), JobDeltas.apply(PARENT, newer));
  }
}
