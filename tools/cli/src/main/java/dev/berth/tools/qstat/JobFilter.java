package dev.berth.tools.qstat;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.util.Set;

/**
 * Which of the jobs a listing returned are shown: {@code -u} owners (a name without {@code @}
 * matches the user part of Job_Owner, one with it the whole owner), {@code -i}/{@code -r} states,
 * {@code -c} (no completed jobs) and a destination's queue.
 */
record JobFilter(Set<String> users, Set<String> states, boolean noCompleted, String queue) {
  boolean accepts(Job job) {
    if (noCompleted && job.getState() == JobState.COMPLETED) {
      return false;
    }
    if (!states.isEmpty() && !states.contains(JobAttributeList.stateLetter(job))) {
      return false;
    }
    if (!queue.isEmpty() && !queue.equals(job.getQueue())) {
      return false;
    }
    return users.isEmpty() || users.stream().anyMatch(user -> owns(user, job.getOwner()));
  }

  private static boolean owns(String user, String owner) {
    if (user.indexOf('@') >= 0) {
      return user.equals(owner);
    }
    int at = owner.indexOf('@');
    return (at < 0 ? owner : owner.substring(0, at)).equals(user);
  }
}
