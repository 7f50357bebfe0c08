package dev.berth.tools.qsub;

import static dev.berth.core.AttributeNames.INIT_WORK_DIR;
import static dev.berth.core.AttributeNames.WORK_DIR;

import dev.berth.core.ControlCharacters;
import dev.berth.core.VariableNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The job's Variable_List. qsub sends, in this order: the {@code PBS_O_*} variables it makes from
 * its own environment and location, then the {@code -v} variables, then with {@code -V} every other
 * variable of its environment. Each name appears once: an explicit {@code -v} value beats the
 * automatic one (so {@code -v PBS_O_WORKDIR=/x} is what the job sees), and {@code -V} never
 * overrides either.
 */
final class VariableList {
  /** The qsub environment variables Torque copies as {@code PBS_O_<name>}, in Torque's order. */
  static final List<String> COPIED =
      List.of("HOME", "LANG", "LOGNAME", "PATH", "MAIL", "SHELL", "TZ");

  private VariableList() {}

  /**
   * Parses a {@code -v} list: comma-separated {@code NAME=value} or {@code NAME} (which takes
   * qsub's own value). Commas inside {@code '..'} or {@code ".."} belong to the value.
   */
  static Map<String, String> parse(String list, Map<String, String> env, List<String> warnings)
      throws QsubException {
    Map<String, String> parsed = new LinkedHashMap<>();
    for (String raw : splitOutsideQuotes(list)) {
      String item = raw.strip();
      if (item.isEmpty()) {
        continue;
      }
      int eq = item.indexOf('=');
      String name = eq < 0 ? item : item.substring(0, eq).strip();
      if (!VariableNames.isName(name)) {
        throw new QsubException(
            "-v "
                + item
                + ": expected NAME or NAME=value (a NAME is letters, digits and _, not starting"
                + " with a digit)");
      }
      if (eq >= 0) {
        parsed.put(name, item.substring(eq + 1));
      } else if (env.containsKey(name)) {
        parsed.put(name, checkedValue(name, env.get(name)));
      } else {
        warnings.add("-v " + name + ": " + name + " is not set here; the job gets it empty");
        parsed.put(name, "");
      }
    }
    return parsed;
  }

  /**
   * The environment {@code -V} sends: every variable the server takes. Bash's exported functions
   * ({@code BASH_FUNC_name%%}) and values with control characters (a multi-line value, a prompt
   * with terminal escapes) are left out, each named in a warning, instead of failing the job.
   */
  static Map<String, String> exported(Map<String, String> env, List<String> warnings) {
    Map<String, String> exported = new TreeMap<>();
    List<String> badNames = new ArrayList<>();
    List<String> badValues = new ArrayList<>();
    new TreeMap<>(env)
        .forEach(
            (name, value) -> {
              if (!VariableNames.isName(name)) {
                badNames.add(name);
              } else if (ControlCharacters.find(value) >= 0) {
                badValues.add(name);
              } else {
                exported.put(name, value);
              }
            });
    if (!badNames.isEmpty()) {
      warnings.add("-V: not passing " + shown(badNames) + " (not variable names)");
    }
    if (!badValues.isEmpty()) {
      warnings.add(
          "-V: not passing "
              + shown(badValues)
              + " (control characters or newlines in the value; pass one with -v if needed)");
    }
    return exported;
  }

  private static String shown(List<String> names) {
    return ControlCharacters.escape(String.join(", ", names));
  }

  private static String checkedValue(String name, String value) throws QsubException {
    int at = ControlCharacters.find(value);
    if (at >= 0) {
      throw new QsubException(
          "-v "
              + name
              + ": its value here holds the control character "
              + ControlCharacters.escape(value.charAt(at))
              + "; no value may hold control characters, newlines or terminal escapes");
    }
    return value;
  }

  /** The {@code NAME=value} entries to send, for a job submitted from {@code ctx}. */
  static List<String> build(JobOptions options, SubmitContext ctx) {
    Map<String, String> automatic = new LinkedHashMap<>();
    for (String name : COPIED) {
      String value = ctx.env().get(name);
      if (value != null) {
        automatic.put("PBS_O_" + name, value);
      }
    }
    automatic.put("PBS_O_HOST", ctx.host());
    automatic.put("PBS_O_WORKDIR", workDir(options, ctx));
    String initDir = options.attributes().get(INIT_WORK_DIR);
    if (initDir != null) {
      automatic.put("PBS_O_INITDIR", initDir);
    }
    Map<String, String> all = new LinkedHashMap<>();
    automatic.forEach((k, v) -> all.put(k, options.variables().getOrDefault(k, v)));
    all.putAll(options.variables());
    if (options.exportEnvironment()) {
      exported(ctx.env(), new ArrayList<>()).forEach(all::putIfAbsent);
    }
    List<String> entries = new ArrayList<>();
    all.forEach((k, v) -> entries.add(k + "=" + v));
    return entries;
  }

  /** PBS_O_WORKDIR: {@code -w} if given (as Torque), else the directory qsub runs in. */
  private static String workDir(JobOptions options, SubmitContext ctx) {
    String w = options.attributes().get(WORK_DIR);
    return w != null ? w : ctx.cwd().toString();
  }

  private static List<String> splitOutsideQuotes(String list) throws QsubException {
    List<String> items = new ArrayList<>();
    StringBuilder item = new StringBuilder();
    char quote = 0;
    for (char c : list.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          item.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == ',') {
        items.add(item.toString());
        item.setLength(0);
      } else {
        item.append(c);
      }
    }
    if (quote != 0) {
      throw new QsubException("-v " + list + ": unmatched " + quote);
    }
    items.add(item.toString());
    return items;
  }
}
