package dev.berth.tools.qsub;

import static dev.berth.core.AttributeNames.INTERACTIVE;

import dev.berth.client.BadArgumentException;
import dev.berth.client.ResourceListArgument;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The syntax checks qsub makes on option values before it sends them, as Torque 6's qsub does
 * (values such as walltimes, sizes and node specs are the server's to judge). Each method returns
 * the value to send or throws with a message naming the option and what it accepts.
 */
final class OptionValues {
  private static final Set<String> KEEP = Set.of("o", "e", "oe", "eo", "n");
  private static final Set<String> JOIN = Set.of("oe", "eo", "n");
  private static final Set<String> CHECKPOINT =
      Set.of(
          "n",
          "c",
          "s",
          "u",
          "none",
          "shutdown",
          "periodic",
          "enabled",
          "interval",
          "depth",
          "dir");

  private OptionValues() {}

  static String nonEmpty(char option, String value, String what) throws QsubException {
    if (value.isBlank()) {
      throw new QsubException("-" + option + " needs " + what);
    }
    return value;
  }

  /** {@code -m}: {@code n}, {@code p}, or any of the letters {@code a b e f}. */
  static String mailPoints(String value) throws QsubException {
    String v = value.strip();
    boolean letters = !v.isEmpty() && v.chars().allMatch(c -> "abef".indexOf(c) >= 0);
    if (!letters && !v.equals("n") && !v.equals("p")) {
      throw new QsubException(
          "-m "
              + value
              + ": use n (no mail), p, or letters from a (abort), b (begin), e (end),"
              + " f (failure)");
    }
    return v;
  }

  /** {@code -p}: an integer from -1024 to 1023, sent without a plus sign. */
  static String priority(String value) throws QsubException {
    String v = value.strip();
    if (!v.matches("[-+]?\\d{1,9}")) {
      throw new QsubException("-p " + value + ": priority must be a whole number (-1024..1023)");
    }
    int p = Integer.parseInt(v.startsWith("+") ? v.substring(1) : v);
    if (p < -1024 || p > 1023) {
      throw new QsubException("-p " + value + ": priority must be between -1024 and 1023");
    }
    return Integer.toString(p);
  }

  static String joinPath(String value) throws QsubException {
    return oneOf('j', value, JOIN, "oe (into output), eo (into error) or n");
  }

  static String keepFiles(String value) throws QsubException {
    return oneOf('k', value, KEEP, "o, e, oe, eo or n");
  }

  /** {@code -r y|n} becomes the boolean Torque stores, {@code True} or {@code False}. */
  static String rerunable(String value) throws QsubException {
    return switch (value) {
      case "y" -> "True";
      case "n" -> "False";
      default -> throw new QsubException("-r " + value + ": use y (rerunnable) or n");
    };
  }

  /** qalter's {@code -h}: letters from {@code u o s}, or {@code n} to release. */
  static String holdTypes(String value) throws QsubException {
    boolean letters = !value.isEmpty() && value.chars().allMatch(c -> "uos".indexOf(c) >= 0);
    if (!letters && !value.equals("n")) {
      throw new QsubException("-h " + value + ": use letters from u (user), o, s, or n (none)");
    }
    return value;
  }

  /** {@code -c}: a comma list of Torque's checkpoint words, some with {@code =value}. */
  static String checkpoint(String value) throws QsubException {
    for (String item : value.split(",", -1)) {
      String name = item.split("=", 2)[0].strip();
      if (!CHECKPOINT.contains(name)) {
        throw new QsubException(
            "-c "
                + value
                + ": '"
                + name
                + "' is not a checkpoint option (use n, s, c, c=MINUTES,"
                + " none, shutdown, periodic, enabled, interval=, depth=, dir=)");
      }
    }
    return value;
  }

  /** {@code -l}: the resource requests, in order ({@link ResourceListArgument}). */
  static List<Map.Entry<String, String>> resources(String value) throws QsubException {
    try {
      return ResourceListArgument.parse(value);
    } catch (BadArgumentException e) {
      throw new QsubException("-l " + e.getMessage());
    }
  }

  /**
   * {@code -W name=value}: the attribute name and value. A value without {@code =} is Torque's
   * resource-manager extension {@code x=value}; {@code depend} is checked like Torque does, and
   * {@code interactive} takes only {@code true}, as in Torque; a relative {@code container_image}
   * path (with a {@code /} or ending in {@code .sqsh}; a bare name names an imported image) is
   * taken from the directory qsub runs in.
   */
  static Map.Entry<String, String> extension(String value, SubmitContext ctx) throws QsubException {
    String v = value.stripLeading();
    int eq = v.indexOf('=');
    String name = eq < 0 ? "x" : v.substring(0, eq).strip();
    String attr = eq < 0 ? v : v.substring(eq + 1).strip();
    if (name.isEmpty() || attr.isEmpty()) {
      throw new QsubException("-W " + value + ": expected name=value (e.g. group_list=GROUP)");
    }
    if (name.equals(INTERACTIVE) && !attr.equals("true")) {
      throw new QsubException(
          "-W " + value + ": illegal -W value (interactive takes only true, the same as -I)");
    }
    if (name.equals("depend")) {
      DependencyList.check(attr);
    }
    if (name.equals("container_image")
        && !attr.startsWith("/")
        && (attr.contains("/") || attr.endsWith(".sqsh"))) {
      attr = ctx.absolute(attr);
    }
    return Map.entry(name, attr);
  }

  /**
   * {@code -o}/{@code -e}: {@code host:path} is kept, any other path gets the submit host, and a
   * relative one the cwd too. {@code $VAR} stays literal; the mom expands it at stage-out.
   */
  static String outputPath(char option, String value, SubmitContext ctx) throws QsubException {
    String path = nonEmpty(option, value, "a path ([host:]path)");
    int colon = path.indexOf(':');
    int slash = path.indexOf('/');
    if (path.startsWith("/") || colon <= 0 || (slash >= 0 && slash < colon)) {
      return ctx.host() + ":" + ctx.absolute(path);
    }
    if (colon == path.length() - 1) {
      throw new QsubException("-" + option + " " + value + ": no path after the host name");
    }
    return path;
  }

  private static String oneOf(char option, String value, Set<String> allowed, String what)
      throws QsubException {
    if (!allowed.contains(value)) {
      throw new QsubException("-" + option + " " + value + ": use " + what);
    }
    return value;
  }
}
