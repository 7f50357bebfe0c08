package dev.berth.tools.qsub;

import dev.berth.client.LocalFiles;
import dev.berth.client.LocalFiles.Probe;
import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where a batch job's output and error files will be delivered on this host, checked as the caller
 * before anything is sent: a directory that is there must be theirs to enter and make files in, a
 * file that is there theirs to write. A job submitted from a directory its owner cannot write could
 * never start (Torque's qsub does not look, and its job loses its output). A directory that is not
 * there yet is let be: the job may make it before it starts, or a job it depends on. Files
 * delivered to another host ({@code -o host:/path}), kept on the node ({@code -k}) or joined into
 * the other stream are not this host's to check.
 */
final class OutputChecks {
  private OutputChecks() {}

  /**
   * @param attributes the job's attributes as qsub sends them
   * @param ctx where qsub runs: its host and working directory
   * @throws QsubException naming the directory, what is wrong and what to do
   */
  static void check(List<Attribute> attributes, SubmitContext ctx, LocalFiles files)
      throws QsubException {
    Map<String, String> a = new HashMap<>();
    attributes.forEach(x -> a.put(x.getName(), x.getValue()));
    String keep = a.getOrDefault(AttributeNames.KEEP_FILES, "n");
    String join = a.getOrDefault(AttributeNames.JOIN_PATH, "n");
    String workDir = a.getOrDefault(AttributeNames.WORK_DIR, ctx.cwd().toString());
    List<Target> targets = new ArrayList<>();
    if (!keep.contains("o") && !join.equals("eo")) {
      target(a.get(AttributeNames.OUTPUT_PATH), workDir, ctx, "-o").ifPresent(targets::add);
    }
    if (!keep.contains("e") && !join.equals("oe")) {
      target(a.get(AttributeNames.ERROR_PATH), workDir, ctx, "-e").ifPresent(targets::add);
    }
    if (targets.isEmpty()) {
      return;
    }
    Set<Path> asked = new LinkedHashSet<>();
    for (Target t : targets) {
      asked.add(t.path());
      if (!t.directory() && t.path().getParent() != null) {
        asked.add(t.path().getParent());
      }
    }
    Map<Path, Probe> probes = files.probe(new ArrayList<>(asked));
    for (Target t : targets) {
      Probe p = probes.get(t.path());
      Path where = t.path();
      if (!t.directory() && p.kind() == Probe.Kind.MISSING && where.getParent() != null) {
        where = where.getParent(); // a file to be made: its directory must take it
        p = probes.get(where);
      }
      String problem =
          switch (p.kind()) {
            case MISSING -> null; // made before the job starts, perhaps by a job it depends on
            // a directory one may enter and write but not list will do
            case DENIED -> p.writable() ? null : "which you cannot enter";
            case DIRECTORY -> p.writable() ? null : "where you cannot make files";
            case FILE, OTHER ->
                where.equals(t.path()) && !t.directory()
                    ? (p.writable() ? null : "which you cannot write")
                    : "which is not a directory";
          };
      if (problem != null) {
        throw new QsubException(
            "the job's output would go to "
                + where
                + ", "
                + problem
                + ": submit from a directory you can write, or give "
                + t.option()
                + " a path you can");
      }
    }
  }

  /** Where a stream goes: a file, or a directory the file is to be made in. */
  private record Target(Path path, boolean directory, String option) {}

  /**
   * Where on this host a stream goes: {@code path}'s file ({@code host:/dir/file}) or directory
   * ({@code host:/dir/}), else the working directory; empty for another host's.
   */
  private static Optional<Target> target(
      String path, String workDir, SubmitContext ctx, String option) {
    if (path == null) {
      return Optional.of(new Target(Path.of(workDir), true, option));
    }
    int colon = path.indexOf(':');
    String host = colon < 0 ? ctx.host() : path.substring(0, colon);
    String file = colon < 0 ? path : path.substring(colon + 1);
    if (!sameHost(host, ctx.host()) || !file.startsWith("/")) {
      return Optional.empty();
    }
    return Optional.of(new Target(Path.of(file), file.endsWith("/"), option));
  }

  /** Whether {@code a} names the host {@code b} does ({@code n1} and {@code n1.site} alike). */
  private static boolean sameHost(String a, String b) {
    String shortA = a.contains(".") ? a.substring(0, a.indexOf('.')) : a;
    String shortB = b.contains(".") ? b.substring(0, b.indexOf('.')) : b;
    return shortA.equalsIgnoreCase(shortB);
  }
}
