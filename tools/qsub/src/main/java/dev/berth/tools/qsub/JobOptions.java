package dev.berth.tools.qsub;

import static dev.berth.core.AttributeNames.ACCOUNT_NAME;
import static dev.berth.core.AttributeNames.CHECKPOINT;
import static dev.berth.core.AttributeNames.DESTINATION;
import static dev.berth.core.AttributeNames.ERROR_PATH;
import static dev.berth.core.AttributeNames.EXECUTION_TIME;
import static dev.berth.core.AttributeNames.HOLD_TYPES;
import static dev.berth.core.AttributeNames.INIT_WORK_DIR;
import static dev.berth.core.AttributeNames.INTERACTIVE;
import static dev.berth.core.AttributeNames.INTER_CMD;
import static dev.berth.core.AttributeNames.JOB_ARRAY_REQUEST;
import static dev.berth.core.AttributeNames.JOB_NAME;
import static dev.berth.core.AttributeNames.JOIN_PATH;
import static dev.berth.core.AttributeNames.KEEP_FILES;
import static dev.berth.core.AttributeNames.MAIL_POINTS;
import static dev.berth.core.AttributeNames.MAIL_USERS;
import static dev.berth.core.AttributeNames.NODE_EXCLUSIVE;
import static dev.berth.core.AttributeNames.OUTPUT_PATH;
import static dev.berth.core.AttributeNames.PRIORITY;
import static dev.berth.core.AttributeNames.RERUNABLE;
import static dev.berth.core.AttributeNames.SHELL_PATH_LIST;
import static dev.berth.core.AttributeNames.WORK_DIR;
import static dev.berth.tools.qsub.OptionValues.nonEmpty;

import dev.berth.client.Getopt;
import dev.berth.core.ControlCharacters;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The options of one qsub or qalter run, merged by Torque's rules: options are applied in order
 * (the script's directives first, then the command line, so the command line wins), the last value
 * of an option replaces earlier ones, and {@code -l}, {@code -W} and {@code -v} merge per resource,
 * attribute or variable name. Values are checked and normalized as they are applied, and kept under
 * the Torque attribute names they will be sent as.
 */
final class JobOptions {
  private final SubmitContext ctx;
  private final Map<String, String> attributes = new LinkedHashMap<>();
  private final Map<String, String> resources = new LinkedHashMap<>();
  private final Map<String, String> variables = new LinkedHashMap<>();
  private boolean exportEnvironment;
  private boolean quiet;
  private boolean runsCommand;

  JobOptions(SubmitContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Applies one option; returns warnings about it (usually none). Throws if the option is not
   * supported or its value is malformed.
   */
  List<String> apply(Getopt.Option option) throws QsubException {
    Optional<String> refused = QsubFlags.unsupported(option.name());
    if (refused.isPresent()) {
      throw new QsubException(refused.get());
    }
    String v = option.value();
    if (v != null && ControlCharacters.find(v) >= 0) {
      throw new QsubException(
          spelled(option)
              + ": the value holds the control character "
              + ControlCharacters.escape(v.charAt(ControlCharacters.find(v)))
              + "; no value may hold control characters, newlines or terminal escapes");
    }
    List<String> warnings = new ArrayList<>();
    switch (option.name()) {
      case 'a' -> set(EXECUTION_TIME, Long.toString(ExecutionTime.parse(v, ctx.clock())));
      case 'A' -> set(ACCOUNT_NAME, nonEmpty('A', v, "an account name"));
      case 'c' -> set(CHECKPOINT, OptionValues.checkpoint(v));
      case 'C' -> {} // the prefix is read from the command line before the script is scanned
      case 'd' -> set(INIT_WORK_DIR, ctx.absolute(nonEmpty('d', v, "a directory")));
      case 'e' -> set(ERROR_PATH, OptionValues.outputPath('e', v, ctx));
      case 'h' -> set(HOLD_TYPES, v == null ? "u" : OptionValues.holdTypes(v));
      case 'I' -> set(INTERACTIVE, "True");
      case 'j' -> set(JOIN_PATH, OptionValues.joinPath(v));
      case 'k' -> set(KEEP_FILES, OptionValues.keepFiles(v));
      case 'l' -> OptionValues.resources(v).forEach(r -> resources.put(r.getKey(), r.getValue()));
      case 'm' -> set(MAIL_POINTS, OptionValues.mailPoints(v));
      case 'M' -> set(MAIL_USERS, nonEmpty('M', v, "mail addresses"));
      case 'n' -> set(NODE_EXCLUSIVE, "True");
      case 'N' -> set(JOB_NAME, nonEmpty('N', v, "a job name"));
      case 'o' -> set(OUTPUT_PATH, OptionValues.outputPath('o', v, ctx));
      case 'p' -> set(PRIORITY, OptionValues.priority(v));
      case 'q' ->
          set(DESTINATION, nonEmpty('q', v, "a destination (queue, queue@server, @server)"));
      case 'r' -> set(RERUNABLE, OptionValues.rerunable(v));
      case 'S' -> set(SHELL_PATH_LIST, nonEmpty('S', v, "a shell path"));
      case 't' -> set(JOB_ARRAY_REQUEST, nonEmpty('t', v, "an array request (e.g. 1-10%2)"));
      case 'v' -> variables.putAll(VariableList.parse(v, ctx.env(), warnings));
      case 'V' -> {
        exportEnvironment = true;
        VariableList.exported(ctx.env(), warnings); // warns here, at -V's line, what it leaves out
      }
      case 'w' -> set(WORK_DIR, ctx.absolute(nonEmpty('w', v, "a directory")));
      case 'W' -> setExtension(OptionValues.extension(v, ctx));
      case 'x' -> {
        if (!interactive()) {
          throw new QsubException("'-x' invalid on non-interactive job");
        }
        runsCommand = true;
      }
      case 'z' -> quiet = true;
      default -> throw new QsubException("unknown option " + spelled(option));
    }
    return warnings;
  }

  /** Attributes other than resources and variables, by Torque name, in first-set order. */
  Map<String, String> attributes() {
    return Collections.unmodifiableMap(attributes);
  }

  /** {@code -l} requests: resource name to value. */
  Map<String, String> resources() {
    return Collections.unmodifiableMap(resources);
  }

  /** {@code -v} variables with their values (a bare NAME took qsub's own value). */
  Map<String, String> variables() {
    return Collections.unmodifiableMap(variables);
  }

  /** {@code -V}: send qsub's whole environment. */
  boolean exportEnvironment() {
    return exportEnvironment;
  }

  /** {@code -z}: do not print the job id. */
  boolean quiet() {
    return quiet;
  }

  /** {@code -I} or {@code -W interactive=true}: a terminal session instead of a batch script. */
  boolean interactive() {
    return attributes.containsKey(INTERACTIVE);
  }

  /**
   * {@code -x}: the interactive job runs the script operand as a command ({@link #command}), given
   * after {@code -I} as Torque requires.
   */
  boolean runsCommand() {
    return runsCommand;
  }

  /** {@code -x}'s command, the operand, which the node runs with {@code SHELL -c}. */
  void command(String command) {
    set(INTER_CMD, command);
  }

  private void set(String name, String value) {
    attributes.put(name, value);
  }

  private void setExtension(Map.Entry<String, String> extension) {
    if (extension.getKey().equals(INTERACTIVE)) {
      set(INTERACTIVE, "True"); // the only value it takes; the same as -I
    } else {
      set(extension.getKey(), extension.getValue());
    }
  }

  private static String spelled(Getopt.Option option) {
    return option.is('-') ? "--" + option.value() : "-" + option.name();
  }
}
