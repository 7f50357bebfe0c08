package dev.berth.core.slurm;

import dev.berth.proto.Job;

/**
 * Slurm's file name patterns of a batch job's output paths (sbatch {@code -o}, {@code -e}), as
 * Slurm 22.05's slurmstepd expands them: {@code %j} the job id, {@code %x} its name, {@code %u} its
 * user, {@code %N} the node the script runs on, {@code %A} and {@code %a} the array's job id and
 * index, {@code %n}, {@code %t} 0 and {@code %s} {@code batch} for the batch script, {@code %%} a
 * percent sign; a width between {@code %} and the letter pads numbers with zeros (at most 10). A
 * path with a backslash is taken as it is, less its backslashes; an unknown letter stays.
 */
public final class SlurmPatterns {
  private static final int MAX_WIDTH = 10;

  /** Slurm's index of a job that is no array task (NO_VAL). */
  static final long NO_INDEX = 4294967294L;

  private SlurmPatterns() {}

  /** {@code path} with the patterns of {@code job}, whose batch script runs on {@code node}. */
  public static String expand(String path, Job job, String node) {
    if (path.indexOf('\\') >= 0) {
      return unescaped(path);
    }
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < path.length()) {
      char c = path.charAt(i);
      if (c != '%' || i + 1 >= path.length()) {
        out.append(c);
        i++;
        continue;
      }
      if (path.charAt(i + 1) == '%') {
        out.append('%');
        i += 2;
        continue;
      }
      int at = i + 1;
      while (at < path.length() && Character.isDigit(path.charAt(at))) {
        at++;
      }
      if (at >= path.length()) { // a width and no letter: kept as written
        out.append(path, i, at);
        break;
      }
      int width = at == i + 1 ? 0 : width(path.substring(i + 1, at));
      String value = value(path.charAt(at), job, node, width);
      if (value == null) { // not a pattern: the text stays, the width too
        out.append(path, i, at);
        i = at;
      } else {
        out.append(value);
        i = at + 1;
      }
    }
    return out.toString();
  }

  private static int width(String digits) {
    return digits.length() > 2 ? MAX_WIDTH : Math.min(MAX_WIDTH, Integer.parseInt(digits));
  }

  private static String value(char letter, Job job, String node, int width) {
    boolean task = !job.getArrayParent().isEmpty();
    return switch (letter) {
      case 'j', 'J' -> padded(SlurmJobs.number(job), width); // an sbatch array task's own
      case 'A' -> padded(job.getNumber(), width); // a subjob's number is its array's
      case 'a' -> padded(task ? job.getArrayIndex() : NO_INDEX, width);
      case 'n', 't' -> padded(0, width);
      case 's' -> "batch";
      case 'N' -> node;
      case 'u' -> job.getEuser();
      case 'x' -> job.getName();
      default -> null;
    };
  }

  private static String padded(long n, int width) {
    String digits = Long.toString(n);
    return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
  }

  /** Slurm's remove_path_slashes: a backslash escapes the next character and is dropped. */
  private static String unescaped(String path) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c == '\\') {
        if (i + 1 < path.length() && path.charAt(i + 1) == '\\') {
          out.append('\\');
          i++;
        }
        continue;
      }
      out.append(c);
    }
    return out.toString();
  }
}
