package dev.berth.server.command.job;

import static dev.berth.core.AttributeNames.ACCOUNT_NAME;
import static dev.berth.core.AttributeNames.CHECKPOINT;
import static dev.berth.core.AttributeNames.DEPEND;
import static dev.berth.core.AttributeNames.DESTINATION;
import static dev.berth.core.AttributeNames.ERROR_PATH;
import static dev.berth.core.AttributeNames.EXECUTION_TIME;
import static dev.berth.core.AttributeNames.GROUP_LIST;
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
import static dev.berth.core.AttributeNames.RESOURCE_LIST;
import static dev.berth.core.AttributeNames.SBATCH;
import static dev.berth.core.AttributeNames.SHELL_PATH_LIST;
import static dev.berth.core.AttributeNames.SUBMIT_ARGS;
import static dev.berth.core.AttributeNames.SUBMIT_HOST;
import static dev.berth.core.AttributeNames.SUBMIT_STYLE;
import static dev.berth.core.AttributeNames.UMASK;
import static dev.berth.core.AttributeNames.VARIABLE_LIST;
import static dev.berth.core.AttributeNames.WORK_DIR;

import dev.berth.core.Hosts;
import dev.berth.core.VariableNames;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.Variable;
import dev.berth.server.command.AttributeSpec;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.ResourceRules;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns Torque job attributes (what qsub and qalter send) into fields of a {@link Job}, checking
 * each value and naming the attribute in any error. Every value first passes {@link
 * AttributeValues} (no control characters, bounded length, and no invisible formatting characters
 * except in the job's environment), since any client may send any attribute; then its own rules
 * (absolute paths, host names, variable names, ...). Attributes that need the rest of the state
 * (queue, dependencies, array request) are checked by the callers.
 */
final class JobAttributes {
  private static final Pattern GROUP_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.\\-]*");
  private static final Set<String> JOIN = Set.of("n", "oe", "eo");
  private static final Set<String> KEEP = Set.of("n", "o", "e", "oe", "eo");

  private JobAttributes() {}

  static void apply(Job.Builder job, Attribute a) {
    String label = a.getResource().isEmpty() ? a.getName() : a.getName() + "." + a.getResource();
    AttributeValues.check("an attribute name", label);
    String v = a.getValue();
    if (a.getName().equals(VARIABLE_LIST) || a.getName().equals(SUBMIT_ARGS)) {
      AttributeValues.checkData(label, v); // the environment the job gets, as the user has it
    } else {
      AttributeValues.check(label, v);
    }
    if (a.getName().equals("stagein") || a.getName().equals("stageout")) {
      throw new CommandException(
          Error.Code.NOT_IMPLEMENTED,
          "file staging (-W " + a.getName() + ") is not supported; use a shared filesystem");
    }
    if (AttributeTable.JOB.find(a.getName()).isEmpty()) {
      throw new CommandException(
          Error.Code.UNKNOWN_ATTRIBUTE, "undefined job attribute '" + a.getName() + "'");
    }
    switch (a.getName()) {
      case JOB_NAME -> job.setName(jobName(v));
      case RESOURCE_LIST -> resource(job, a);
      case OUTPUT_PATH -> job.setOutputPath(path(OUTPUT_PATH, v));
      case ERROR_PATH -> job.setErrorPath(path(ERROR_PATH, v));
      case JOIN_PATH -> job.setJoinPath(oneOf(JOIN_PATH, v, JOIN));
      case KEEP_FILES -> job.setKeepFiles(oneOf(KEEP_FILES, v, KEEP));
      case HOLD_TYPES -> job.setHolds(holds(v));
      case PRIORITY -> job.setPriority(priority(v));
      case DESTINATION -> job.setQueue(v.trim());
      case ACCOUNT_NAME -> job.setAccount(v);
      case MAIL_POINTS -> job.setMailPoints(mailPoints(v));
      case MAIL_USERS -> job.setMailUsers(v); // as Torque: mail goes only to its plain addresses
      case SHELL_PATH_LIST -> job.setShell(shell(v));
      case RERUNABLE -> job.setRerunnable(bool(RERUNABLE, v));
      case VARIABLE_LIST -> variable(job, v);
      case INIT_WORK_DIR -> job.setInitWorkDir(absolute(INIT_WORK_DIR, v));
      case WORK_DIR -> job.setWorkDir(absolute(WORK_DIR, v));
      case EXECUTION_TIME -> job.setExecutionTime(number(EXECUTION_TIME, v));
      case CHECKPOINT -> job.setCheckpoint(v);
      case JOB_ARRAY_REQUEST -> job.setArrayRequest(v.trim());
      case DEPEND -> job.putExtensions(DEPEND, v.trim());
      case NODE_EXCLUSIVE -> job.setNodeExclusive(bool(NODE_EXCLUSIVE, v));
      case SUBMIT_ARGS -> job.setSubmitArgs(v);
      case SUBMIT_HOST -> job.setSubmitHost(host(SUBMIT_HOST, v));
      case UMASK -> job.putExtensions(UMASK, umask(v));
      case GROUP_LIST -> job.putExtensions(GROUP_LIST, groupList(v));
      case INTERACTIVE -> interactive(job, bool(INTERACTIVE, v));
      case INTER_CMD -> job.getInteractiveBuilder().setCommand(command(v));
      case ContainerAttributes.IMAGE,
          ContainerAttributes.MOUNTS,
          ContainerAttributes.WORKDIR,
          ContainerAttributes.WRITABLE,
          ContainerAttributes.REMAP_ROOT,
          ContainerAttributes.NAME,
          ContainerAttributes.ENV ->
          ContainerAttributes.apply(job.getContainerBuilder(), a.getName(), v);
      case SUBMIT_STYLE -> job.setSubmitStyle(oneOf(SUBMIT_STYLE, v, Set.of(SBATCH)));
      case "x", "job_radix" -> job.putExtensions(a.getName(), v); // recorded, no effect yet
      default ->
          throw new IllegalStateException("job attribute " + a.getName() + " is not handled");
    }
  }

  /** {@code interactive = False} takes back an earlier True, as Torque's attribute does. */
  private static void interactive(Job.Builder job, boolean on) {
    if (on) {
      job.getInteractiveBuilder();
    } else {
      job.clearInteractive();
    }
  }

  /** qsub -x's command, run with {@code SHELL -c} on the mother superior's terminal. */
  private static String command(String v) {
    if (v.isBlank()) {
      throw new CommandException(Error.Code.BAD_VALUE, INTER_CMD + " is empty");
    }
    return v;
  }

  private static void resource(Job.Builder job, Attribute a) {
    String name = a.getResource();
    if (name.isEmpty()) {
      throw new CommandException(Error.Code.BAD_VALUE, "Resource_List needs a resource name");
    }
    ResourceRequest.Builder r = job.getResourcesBuilder();
    if (a.getOp() == Attribute.Op.UNSET) {
      r.removeValues(name);
      ResourceRequest cleared = ResourceRequest.newBuilder().putAllValues(r.getValuesMap()).build();
      job.setResources(retype(cleared));
      return;
    }
    String value = ResourceRules.normalize(name, a.getValue());
    r.putValues(name, value);
    ResourceRules.setTyped(r, name, value);
    if (name.equals("nodes") && value.endsWith("#excl")) {
      job.setNodeExclusive(true);
    }
  }

  /** Rebuilds the typed fields from the display values (after an unset). */
  static ResourceRequest retype(ResourceRequest r) {
    ResourceRequest.Builder b = ResourceRequest.newBuilder().putAllValues(r.getValuesMap());
    r.getValuesMap().forEach((name, value) -> ResourceRules.setTyped(b, name, value));
    return b.build();
  }

  private static String jobName(String v) {
    String name = v.trim();
    if (name.isEmpty() || name.indexOf('/') >= 0) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "illegal job name '" + v + "': it must be non-empty, without '/'");
    }
    return name;
  }

  /** {@code [host:]/absolute/path}: the mom writes the file at the path on its own node. */
  private static String path(String attribute, String v) {
    String p = v.trim();
    int colon = p.indexOf(':');
    String file = colon >= 0 ? p.substring(colon + 1) : p;
    if (!file.startsWith("/")) {
      throw new CommandException(
          Error.Code.BAD_VALUE, attribute + " '" + v + "' must be an absolute path (host:/path)");
    }
    if (colon >= 0) {
      host(attribute, p.substring(0, colon));
    }
    return p;
  }

  private static String host(String attribute, String v) {
    if (!Hosts.isName(v)) {
      throw new CommandException(
          Error.Code.BAD_VALUE, attribute + ": '" + v + "' is not a host name");
    }
    return v;
  }

  /** {@code group[@host][,group[@host]...]}, as Torque's -W group_list. */
  private static String groupList(String v) {
    if (AttributeSpec.items(v).isEmpty()) {
      throw new CommandException(Error.Code.BAD_VALUE, "group_list names no group");
    }
    for (String item : AttributeSpec.items(v)) {
      int at = item.indexOf('@');
      String group = at < 0 ? item : item.substring(0, at);
      if (!GROUP_NAME.matcher(group).matches()
          || (at >= 0 && !Hosts.isName(item.substring(at + 1)))) {
        throw new CommandException(
            Error.Code.BAD_VALUE,
            "illegal group_list '" + v + "': '" + item + "' is not group or group@host");
      }
    }
    return v;
  }

  private static String absolute(String attribute, String v) {
    if (!v.startsWith("/")) {
      throw new CommandException(
          Error.Code.BAD_VALUE, attribute + " '" + v + "' must be an absolute path");
    }
    return v;
  }

  private static String oneOf(String attribute, String v, Set<String> allowed) {
    if (!allowed.contains(v)) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "illegal " + attribute + " '" + v + "' (allowed: " + allowed + ")");
    }
    return v;
  }

  static Holds holds(String v) {
    Holds.Builder h = Holds.newBuilder();
    for (char c : v.toCharArray()) {
      switch (c) {
        case 'u' -> h.setUser(true);
        case 'o' -> h.setOther(true);
        case 's' -> h.setSystem(true);
        case 'n' -> {
          // no hold
        }
        default ->
            throw new CommandException(
                Error.Code.BAD_VALUE, "illegal hold type '" + c + "' (use u, o, s or n)");
      }
    }
    return h.build();
  }

  private static int priority(String v) {
    try {
      int p = Integer.parseInt(v.trim());
      if (p >= -1024 && p <= 1023) {
        return p;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new CommandException(
        Error.Code.BAD_VALUE, "illegal Priority '" + v + "' (a number from -1024 to 1023)");
  }

  private static String mailPoints(String v) {
    if (v.equals("n")
        || v.equals("p")
        || (!v.isEmpty() && v.chars().allMatch(c -> "abef".indexOf(c) >= 0))) {
      return v;
    }
    throw new CommandException(
        Error.Code.BAD_VALUE, "illegal Mail_Points '" + v + "' (n, p, or letters of abef)");
  }

  private static String shell(String v) {
    String first = AttributeSpec.items(v).isEmpty() ? "" : AttributeSpec.items(v).get(0);
    int at = first.indexOf('@');
    String path = at < 0 ? first : first.substring(0, at);
    return absolute(SHELL_PATH_LIST, path);
  }

  static boolean bool(String attribute, String v) {
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true", "t", "y", "yes", "1" -> true;
      case "false", "f", "n", "no", "0" -> false;
      default ->
          throw new CommandException(
              Error.Code.BAD_VALUE, "illegal " + attribute + " '" + v + "' (y or n)");
    };
  }

  private static long number(String attribute, String v) {
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new CommandException(Error.Code.BAD_VALUE, "illegal " + attribute + " '" + v + "'");
    }
  }

  private static String umask(String v) {
    if (!v.matches("0?[0-7]{1,3}")) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "illegal umask '" + v + "' (octal, e.g. 022)");
    }
    return v;
  }

  /** Adds or replaces one {@code NAME=value} of Variable_List, keeping first-seen order. */
  private static void variable(Job.Builder job, String v) {
    int eq = v.indexOf('=');
    String name = eq < 0 ? v : v.substring(0, eq);
    String value = eq < 0 ? "" : v.substring(eq + 1);
    if (!VariableNames.isName(name)) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "illegal variable name '" + name + "' in Variable_List");
    }
    for (int i = 0; i < job.getVariablesCount(); i++) {
      if (job.getVariables(i).getName().equals(name)) {
        job.setVariables(i, Variable.newBuilder().setName(name).setValue(value));
        return;
      }
    }
    job.addVariables(Variable.newBuilder().setName(name).setValue(value));
  }
}
