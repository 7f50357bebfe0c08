package dev.berth.mom.nodejob;

import dev.berth.mom.Cleanup;
import dev.berth.mom.MomConfig;
import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.Trash;
import dev.berth.mom.os.UserInfo;
import dev.berth.mom.os.Users;
import dev.berth.proto.Job;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A job's footprint on one node, mother superior or sister: the account it runs as (checked on this
 * node), and its private TMPDIR. Made before anything of the job runs here and released after
 * everything of it has ended: released, the TMPDIR goes to the {@link Trash} of its base, which the
 * node's {@link Cleanup} empties.
 *
 * @param user the job's owner as this node knows them
 * @param runAs the owner, or null when the mom is not root and runs jobs as itself
 * @param gid the group the job runs with: its egroup if the owner belongs to it
 */
public record NodeJob(Job job, UserInfo user, UserInfo runAs, int gid, Path tmpdir) {
  /** The job cannot run on this node; the message says why. */
  public static final class RefusedException extends Exception {
    private static final long serialVersionUID = 1L;

    public RefusedException(String message) {
      super(message);
    }
  }

  public static NodeJob prepare(Job job, MomConfig config, Users users) throws RefusedException {
    NodeJob found = existing(job, config, users);
    if (found.user().uid() == 0 && !config.rootJobs()) {
      throw new RefusedException(
          "node "
              + config.name()
              + " does not run jobs as root (its mom was not started with --root-jobs)");
    }
    try {
      // an earlier run of the same job (requeued) may have left one, in whatever state
      Trash.in(config.tmpBase()).discard(found.tmpdir());
      JobFiles.createUserDirectory(found.tmpdir(), found.runAs(), found.gid());
    } catch (IOException e) {
      throw new RefusedException(
          "cannot create the job directory "
              + found.tmpdir()
              + " on "
              + config.name()
              + ": "
              + e.getMessage());
    }
    return found;
  }

  /** The job as a mom that restarted finds it: the account checked again, nothing made. */
  public static NodeJob existing(Job job, MomConfig config, Users users) throws RefusedException {
    UserInfo user =
        users
            .user(job.getEuser())
            .orElseThrow(
                () ->
                    new RefusedException(
                        "user " + job.getEuser() + " does not exist on node " + config.name()));
    boolean asRoot = users.self().equals("root");
    if (!asRoot && !users.self().equals(user.name())) {
      throw new RefusedException(
          "the mom on "
              + config.name()
              + " runs as "
              + users.self()
              + " and cannot run jobs of "
              + user.name());
    }
    int gid =
        users
            .groupId(job.getEgroup())
            .filter(g -> g == user.gid() || user.groups().contains(g))
            .orElse(user.gid());
    Path tmpdir = config.tmpBase().resolve(job.getId());
    return new NodeJob(job, user, asRoot ? user : null, gid, tmpdir);
  }

  /**
   * Puts what a job had on this node in the trash, whether this mom prepared it or found it after a
   * restart; reports a failure instead of throwing, since the job is over either way.
   */
  static String release(MomConfig config, String jobId) {
    Path tmpdir = config.tmpBase().resolve(jobId);
    try {
      Trash.in(config.tmpBase()).discard(tmpdir);
    } catch (IOException e) {
      return "cannot move " + tmpdir + " to the trash: " + e.getMessage();
    }
    return "";
  }
}
