package dev.berth.mom.output;

import dev.berth.core.slurm.SlurmJobs;
import dev.berth.core.slurm.SlurmPatterns;
import dev.berth.proto.Job;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Where a job's stdout and stderr go on its mother superior. A stream the job keeps ({@code -k o},
 * {@code -k e}) goes to the owner's home directory here under Torque's default name; a stream whose
 * path is on this node (or on a file system it shares with that path's host) is written in place;
 * any other is written to the job's spool on this node and delivered to its host after the job.
 * Paths get {@code $PBS_JOBID}, {@code $PBS_JOBNAME}, {@code $HOME} and {@code $USER} expanded as
 * Torque's mom expands them (a job sbatch submitted gets Slurm's patterns instead: {@link
 * SlurmPatterns}), and a directory gets Torque's default file name inside it.
 */
public final class OutputFiles {
  private OutputFiles() {}

  /**
   * The files the job's script writes, and which of them go to another host afterwards.
   *
   * @param spooled the streams written to the spool, with the host each is delivered to
   */
  public record Paths(Path stdout, Path stderr, boolean join, List<Spooled> spooled) {
    public Paths {
      spooled = List.copyOf(spooled);
    }
  }

  /** A stream ("o" or "e") written to {@code file} in the spool, for delivery to {@code host}. */
  public record Spooled(String stream, String host, Path file) {}

  /**
   * @param env the job's environment (for the expansions)
   * @param routes which hosts' paths are written in place on this node
   * @param spool the job's spool directory on this node (made only when a stream goes there)
   */
  public static Paths of(
      Job job,
      Map<String, String> env,
      Predicate<Path> isDirectory,
      OutputRoutes routes,
      Path spool) {
    List<Spooled> spooled = new ArrayList<>();
    Placer placer = new Placer(job, env, isDirectory, routes, spool, spooled);
    if (job.getJoinPath().equals("eo")) {
      Path err = placer.place("e", job.getErrorPath());
      return new Paths(err, err, true, spooled);
    }
    Path out = placer.place("o", job.getOutputPath());
    if (job.getJoinPath().equals("oe")) {
      return new Paths(out, out, true, spooled);
    }
    return new Paths(out, placer.place("e", job.getErrorPath()), false, spooled);
  }

  /**
   * Where {@code stream} of {@code job} goes on the host its path names: what a submit host's relay
   * writes a delivered stream to.
   */
  public static Path destination(
      Job job, String stream, Map<String, String> env, Predicate<Path> isDirectory) {
    String attribute = stream.equals("o") ? job.getOutputPath() : job.getErrorPath();
    int colon = attribute.indexOf(':');
    return resolve(attribute.substring(colon + 1), job, "." + stream, env, isDirectory);
  }

  /** Torque's default file name of a stream: {@code NAME.oNUMBER}, {@code NAME.eNUMBER-INDEX}. */
  public static String defaultName(Job job, String kind) {
    String suffix = job.getArrayParent().isEmpty() ? "" : "-" + job.getArrayIndex();
    return job.getName() + kind + job.getNumber() + suffix;
  }

  private record Placer(
      Job job,
      Map<String, String> env,
      Predicate<Path> isDirectory,
      OutputRoutes routes,
      Path spool,
      List<Spooled> spooled) {
    Path place(String stream, String attribute) {
      String kind = "." + stream;
      if (job.getKeepFiles().contains(stream)) {
        return Path.of(env.getOrDefault("HOME", "/")).resolve(defaultName(job, kind));
      }
      OutputRoutes.Route route = routes.route(attribute);
      if (route instanceof OutputRoutes.Delivered d) {
        Path file = spool.resolve(defaultName(job, kind));
        spooled.add(new Spooled(stream, d.host(), file));
        return file;
      }
      return resolve(((OutputRoutes.InPlace) route).path(), job, kind, env, isDirectory);
    }
  }

  private static Path resolve(
      String path, Job job, String kind, Map<String, String> env, Predicate<Path> isDirectory) {
    if (SlurmJobs.sbatch(job)) {
      String node = job.getExecNodesCount() > 0 ? job.getExecNodes(0).getNode() : "";
      path = SlurmPatterns.expand(path, job, node);
    } else {
      for (String name : new String[] {"PBS_JOBID", "PBS_JOBNAME", "HOME", "USER"}) {
        String value = env.getOrDefault(name, "");
        path = path.replace("${" + name + "}", value).replace("$" + name, value);
      }
    }
    Path p = Path.of(path);
    if (isDirectory.test(p)) {
      return p.resolve(defaultName(job, kind));
    }
    return p;
  }
}
