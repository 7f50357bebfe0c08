package dev.berth.mom.job;

import dev.berth.proto.Job;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Where a job's stdout and stderr go on this node: the path part of Output_Path and Error_Path (the
 * files are written in place, so they must be on a filesystem the node sees), with {@code
 * $PBS_JOBID}, {@code $PBS_JOBNAME}, {@code $HOME} and {@code $USER} expanded as Torque's mom
 * expands them, and a directory getting Torque's default file name inside it.
 */
public final class OutputFiles {
  private OutputFiles() {}

  public record Paths(Path stdout, Path stderr, boolean join) {}

  public static Paths of(Job job, Map<String, String> env, Predicate<Path> isDirectory) {
    boolean joinOut = job.getJoinPath().equals("oe");
    boolean joinErr = job.getJoinPath().equals("eo");
    Path out = resolve(job.getOutputPath(), job, ".o", env, isDirectory);
    Path err = resolve(job.getErrorPath(), job, ".e", env, isDirectory);
    if (joinErr) {
      return new Paths(err, err, true);
    }
    return new Paths(out, err, joinOut);
  }

  private static Path resolve(
      String attribute,
      Job job,
      String kind,
      Map<String, String> env,
      Predicate<Path> isDirectory) {
    int colon = attribute.indexOf(':');
    String path = colon >= 0 ? attribute.substring(colon + 1) : attribute;
    for (String name : new String[] {"PBS_JOBID", "PBS_JOBNAME", "HOME", "USER"}) {
      String value = env.getOrDefault(name, "");
      path = path.replace("${" + name + "}", value).replace("$" + name, value);
    }
    Path p = Path.of(path);
    if (isDirectory.test(p)) {
      String suffix = job.getArrayParent().isEmpty() ? "" : "-" + job.getArrayIndex();
      return p.resolve(job.getName() + kind + job.getNumber() + suffix);
    }
    return p;
  }
}
