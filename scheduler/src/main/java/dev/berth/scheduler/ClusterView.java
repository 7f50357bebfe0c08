package dev.berth.scheduler;

import dev.berth.proto.Job;
import java.util.List;

/** The read-only view of the cluster a scheduling cycle works from. */
public interface ClusterView {
  /** Nodes in placement order. */
  List<NodeCapacity> nodes();

  /** Jobs that may start now (state Q, queue started), highest priority first. */
  Iterable<Job> eligibleJobs();

  /** Subjobs of an array that currently hold nodes, for its slot limit. */
  int runningSubjobs(String arrayParentId);
}
