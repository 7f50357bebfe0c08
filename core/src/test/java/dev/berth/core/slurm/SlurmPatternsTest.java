package dev.berth.core.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Job;
import org.junit.jupiter.api.Test;

/** Slurm 22.05's output file patterns of a batch job (slurmd/common/fname.c). */
class SlurmPatternsTest {
  private static final Job JOB =
      Job.newBuilder().setId("42.head").setNumber(42).setName("train").setEuser("alice").build();

  @Test
  void patternsAreTheJobsFacts() {
    assertEquals(
        "/w/train-42-alice-n1-batch-0.out",
        SlurmPatterns.expand("/w/%x-%j-%u-%N-%s-%t.out", JOB, "n1"));
    assertEquals("/w/slurm-42.out", SlurmPatterns.expand("/w/slurm-%j.out", JOB, "n1"));
  }

  @Test
  void aWidthPadsWithZerosUpToTen() {
    assertEquals("/w/00042.out", SlurmPatterns.expand("/w/%5j.out", JOB, "n1"));
    assertEquals("/w/0000000042.out", SlurmPatterns.expand("/w/%99j.out", JOB, "n1"));
  }

  @Test
  void arraysAndTheirIndexes() {
    Job task = JOB.toBuilder().setArrayParent("42[].head").setArrayIndex(7).build();
    assertEquals("/w/slurm-42_7.out", SlurmPatterns.expand("/w/slurm-%A_%a.out", task, "n1"));
    assertEquals("/w/42_4294967294", SlurmPatterns.expand("/w/%A_%a", JOB, "n1"));
    assertEquals("/w/42-42", SlurmPatterns.expand("/w/%A-%j", task, "n1"), "qsub's task");
    Job own = task.toBuilder().setTaskNumber(49).build();
    assertEquals("/w/42-49_7", SlurmPatterns.expand("/w/%A-%j_%a", own, "n1"), "sbatch's task");
  }

  @Test
  void percentSignsBackslashesAndUnknownLetters() {
    assertEquals("/w/100%-42.out", SlurmPatterns.expand("/w/100%%-%j.out", JOB, "n1"));
    assertEquals("/w/%j.out", SlurmPatterns.expand("/w/\\%j.out", JOB, "n1"));
    assertEquals("/w/%q%3q%", SlurmPatterns.expand("/w/%q%3q%", JOB, "n1"));
  }
}
