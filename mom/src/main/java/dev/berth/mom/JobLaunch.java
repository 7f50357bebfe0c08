package dev.berth.mom;

import dev.berth.mom.job.JobEnvironment;
import dev.berth.mom.job.NodeFile;
import dev.berth.mom.job.OutputFiles;
import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.os.UserInfo;
import dev.berth.mom.os.Users;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.Job;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Everything between "run this job" and a process: who it runs as, its TMPDIR and nodefile, its
 * environment, output files and working directory. Each step is a small piece of its own
 * (JobEnvironment, NodeFile, OutputFiles, JobFiles); this class puts them in order.
 */
final class JobLaunch {
  /** The job cannot start on this node; the message says why. */
  static final class LaunchException extends Exception {
    private static final long serialVersionUID = 1L;

    LaunchException(String message) {
      super(message);
    }
  }

  record Prepared(StartSpec spec, Path tmpdir) {}

  private JobLaunch() {}

  static Prepared prepare(Job job, MomConfig config, Users users, JobRecords records)
      throws LaunchException {
    UserInfo user =
        users
            .user(job.getEuser())
            .orElseThrow(
                () ->
                    new LaunchException(
                        "user " + job.getEuser() + " does not exist on node " + config.name()));
    boolean asRoot = users.self().equals("root");
    if (!asRoot && !users.self().equals(user.name())) {
      throw new LaunchException(
          "the mom on "
              + config.name()
              + " runs as "
              + users.self()
              + " and cannot run jobs of "
              + user.name());
    }
    int gid = group(job, user, users);
    Path tmpdir = config.tmpBase().resolve(job.getId());
    Path nodefile = tmpdir.resolve("nodefile");
    try {
      JobFiles.removeTree(tmpdir);
      JobFiles.createUserDirectory(tmpdir, asRoot ? user : null, gid);
      JobFiles.writeReadable(nodefile, NodeFile.lines(job));
    } catch (IOException e) {
      throw new LaunchException(
          "cannot create the job directory " + tmpdir + ": " + e.getMessage());
    }
    String shell =
        !job.getShell().isEmpty()
            ? job.getShell()
            : user.shell().isEmpty() ? "/bin/sh" : user.shell();
    Map<String, String> env =
        JobEnvironment.build(
            job,
            new JobEnvironment.Owner(user.name(), user.home(), shell),
            tmpdir,
            nodefile,
            config.version());
    if (job.getOutputPath().isEmpty() || job.getErrorPath().isEmpty()) {
      throw new LaunchException("the job has no output or error path");
    }
    OutputFiles.Paths out = OutputFiles.of(job, env, Files::isDirectory);
    Path cwd = Path.of(job.getInitWorkDir().isEmpty() ? user.home() : job.getInitWorkDir());
    String argv0 = "-" + Path.of(shell).getFileName();
    StartSpec spec =
        new StartSpec(
            asRoot ? user : null,
            gid,
            cwd,
            records.script(job.getId()),
            out.stdout(),
            out.stderr(),
            out.join(),
            job.getExtensionsOrDefault("umask", ""),
            List.of(),
            records.statusFile(job.getId()),
            argv0,
            List.of(shell),
            env);
    return new Prepared(spec, tmpdir);
  }

  /** The job's egroup if the user belongs to it, else the user's primary group. */
  private static int group(Job job, UserInfo user, Users users) {
    return users
        .groupId(job.getEgroup())
        .filter(g -> g == user.gid() || user.groups().contains(g))
        .orElse(user.gid());
  }
}
