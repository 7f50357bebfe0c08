package dev.berth.server.state;

import com.google.protobuf.ByteString;
import dev.berth.core.ArrayRequest;
import dev.berth.core.JobDeltas;
import dev.berth.core.JobIds;
import dev.berth.core.pbs.JobTransition;
import dev.berth.core.slurm.SlurmJobs;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.SubjobRestored;

/** Applies the events that add and remove whole jobs, array jobs included. */
final class Jobs {
  private Jobs() {}

  /**
   * A new job: a plain job, or an array job whose subjobs are made here from its request (so the
   * event stays small and every replay makes the very same subjobs). The tasks of an array sbatch
   * submitted each take a job number of their own, Slurm's job id of a task: the array's, then the
   * numbers after it, in index order.
   */
  static void submitted(StateBuilder b, Job job, Event e) {
    b.add(job);
    b.script(job, e.getJobSubmitted().getScript());
    long last = job.getNumber();
    if (!job.getArrayRequest().isEmpty()) {
      String server = JobIds.server(job.getId());
      boolean numbered = SlurmJobs.sbatch(job);
      for (int index : ArrayRequest.parse(job.getArrayRequest(), Integer.MAX_VALUE).indices()) {
        Job subjob = subjob(job, index, server);
        if (numbered) {
          subjob = subjob.toBuilder().setTaskNumber(last++).build();
        }
        b.add(subjob);
      }
    }
    b.nextJobNumber = Math.max(b.nextJobNumber, Math.max(last, job.getNumber() + 1));
  }

  /**
   * A job from a snapshot image, exactly as it was. Earlier releases wrote subjobs whole: each is
   * made to share with its parent what it has of the parent's, as a subjob the submission made
   * does, so that their snapshots load within the memory the state takes.
   */
  static void restored(StateBuilder b, Job job, ByteString script) {
    Job parent = b.jobs.get(job.getArrayParent());
    add(b, parent == null ? job : shared(madeBy(parent, job.getArrayIndex()), job), script);
  }

  /** A subjob from a snapshot image: what differs from the subjob its parent (restored) makes. */
  static void subjobRestored(StateBuilder b, SubjobRestored r) {
    Job made = madeBy(b.require(r.getArrayParent()), r.getArrayIndex());
    add(b, JobDeltas.apply(made, r.getDiffers()), ByteString.EMPTY);
  }

  /** An image of a subjob: what differs from the subjob its parent makes (for the snapshot). */
  static SubjobRestored subjobImage(Job parent, Job subjob) {
    return SubjobRestored.newBuilder()
        .setArrayParent(parent.getId())
        .setArrayIndex(subjob.getArrayIndex())
        .setDiffers(JobDeltas.between(madeBy(parent, subjob.getArrayIndex()), subjob))
        .build();
  }

  /**
   * {@code next}, a new version of subjob {@code current}, sharing every value the two have in
   * common with {@code current} (and so with its parent) rather than holding its own copy.
   */
  static Job shared(Job current, Job next) {
    return JobDeltas.apply(current, JobDeltas.between(current, next));
  }

  private static void add(StateBuilder b, Job job, ByteString script) {
    b.add(job);
    if (job.getSuspendConfirmed()) {
      // in any order with the preemptor's job that runs on its CPUs
      job.getExecNodesList().forEach(a -> b.holdSuspended(a, job.getId()));
    } else if (job.getState() == JobState.RUNNING || job.getState() == JobState.EXITING) {
      job.getExecNodesList().forEach(a -> b.hold(a, job.getId()));
    }
    if (job.getArrayParent().isEmpty()) {
      b.script(job, script);
    }
    b.nextJobNumber = Math.max(b.nextJobNumber, Math.max(job.getNumber(), job.getTaskNumber()) + 1);
  }

  /** A completed job leaves the state; an array job takes its subjobs with it. */
  static void purged(StateBuilder b, String id) {
    Job job = b.require(id);
    StateMachine.require(job, JobTransition.JOB_PURGED);
    if (b.jobs.containsKey(job.getArrayParent())) {
      // alone it would leave its array's counts short and the array's state stuck
      throw new IllegalTransitionException(
          "subjob " + id + " leaves only with its array " + job.getArrayParent());
    }
    if (!job.getArrayRequest().isEmpty()) {
      for (String subjobId : StateMachine.subjobIds(job)) {
        Job subjob = b.jobs.get(subjobId);
        if (subjob != null) {
          b.remove(subjob);
        }
      }
    }
    b.remove(job);
  }

  private static Job madeBy(Job parent, int index) {
    return subjob(parent, index, JobIds.server(parent.getId()));
  }

  /**
   * A subjob of {@code parent}: Torque names it {@code name-index}; a task of an sbatch array keeps
   * its array's name, as Slurm's do. Its own job number (sbatch's) is the submission's to give.
   */
  static Job subjob(Job parent, int index, String server) {
    return parent.toBuilder()
        .setOutputPath(perSubjob(parent.getOutputPath(), ".o" + parent.getNumber(), index))
        .setErrorPath(perSubjob(parent.getErrorPath(), ".e" + parent.getNumber(), index))
        .setId(JobIds.subjobOf(parent.getNumber(), index, server))
        .setName(SlurmJobs.sbatch(parent) ? parent.getName() : parent.getName() + "-" + index)
        .setArrayIndex(index)
        .setArrayParent(parent.getId())
        .clearArrayRequest()
        .setArraySize(0)
        .build();
  }

  /** Default output files get the index ({@code name.o12-3}) so subjobs do not share them. */
  private static String perSubjob(String path, String defaultSuffix, int index) {
    return path.endsWith(defaultSuffix) ? path + "-" + index : path;
  }
}
