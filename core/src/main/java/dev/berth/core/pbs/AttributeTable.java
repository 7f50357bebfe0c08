package dev.berth.core.pbs;

import static dev.berth.core.pbs.AttributeDef.Unit.BYTES;
import static dev.berth.core.pbs.AttributeDef.Unit.NONE;
import static dev.berth.core.pbs.AttributeDef.Unit.SECONDS;
import static dev.berth.core.pbs.Spelling.BERTH;
import static dev.berth.core.pbs.Spelling.OPENPBS;
import static dev.berth.core.pbs.Spelling.TORQUE;

import dev.berth.core.AttributeNames;
import dev.berth.core.NodeAttributeNames;
import dev.berth.core.QueueAttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.core.pbs.AttributeDef.Unit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The attributes of the server, of a queue and of a node, in the order docs/qmgr.md lists them, and
 * those of a job, as docs/qsub.md lists them (AttributeTableTest holds each to its page). The
 * server checks and stores values by these definitions, qmgr prints by them, and the defaults here
 * are what an unset attribute reads as.
 */
public enum AttributeTable {
  SERVER(
      List.of(
          manager(ServerAttributeNames.SCHEDULING, ValueType.BOOLEAN, "True", TORQUE),
          manager(ServerAttributeNames.DEFAULT_QUEUE, ValueType.STRING, null, TORQUE),
          manager(ServerAttributeNames.MANAGERS, ValueType.LIST, null, TORQUE),
          manager(ServerAttributeNames.OPERATORS, ValueType.LIST, null, TORQUE),
          manager(ServerAttributeNames.QUERY_OTHER_JOBS, ValueType.BOOLEAN, "False", TORQUE),
          seconds(ServerAttributeNames.KEEP_COMPLETED, ValueType.INTEGER, "300", TORQUE),
          manager(ServerAttributeNames.CGROUP_ENABLE, ValueType.BOOLEAN, "False", BERTH),
          seconds(ServerAttributeNames.KILL_DELAY, ValueType.INTEGER, "2", TORQUE),
          manager(ServerAttributeNames.MAX_JOB_ARRAY_SIZE, ValueType.COUNT, "10000", TORQUE),
          seconds(ServerAttributeNames.NODE_CHECK_RATE, ValueType.INTEGER, "150", TORQUE),
          seconds(ServerAttributeNames.SCHEDULER_ITERATION, ValueType.INTEGER, "60", TORQUE),
          manager(ServerAttributeNames.BACKFILL_DEPTH, ValueType.COUNT, "1", OPENPBS),
          manager(ServerAttributeNames.STRICT_ORDERING, ValueType.BOOLEAN, "False", OPENPBS),
          manager(ServerAttributeNames.PRIORITY_WEIGHT_AGE, ValueType.COUNT, "0", BERTH),
          seconds(ServerAttributeNames.PRIORITY_MAX_AGE, ValueType.DURATION, "604800", BERTH),
          manager(ServerAttributeNames.PRIORITY_WEIGHT_JOB_SIZE, ValueType.COUNT, "0", BERTH),
          manager(ServerAttributeNames.PRIORITY_FAVOR_SMALL, ValueType.BOOLEAN, "False", BERTH),
          manager(ServerAttributeNames.PRIORITY_WEIGHT_QUEUE, ValueType.COUNT, "0", BERTH),
          manager(ServerAttributeNames.PRIORITY_WEIGHT_USER, ValueType.COUNT, "1000", BERTH),
          manager(ServerAttributeNames.PRIORITY_WEIGHT_FAIRSHARE, ValueType.COUNT, "0", BERTH),
          seconds(ServerAttributeNames.FAIRSHARE_HALF_LIFE, ValueType.DURATION, "604800", BERTH),
          manager(ServerAttributeNames.FAIRSHARE_WEIGHT_GPU, ValueType.COUNT, "8", BERTH),
          manager(ServerAttributeNames.FAIRSHARE_WEIGHT_MEM_GB, ValueType.COUNT, "0", BERTH),
          manager(ServerAttributeNames.FAIRSHARE_USER, ValueType.SHARES, null, BERTH),
          manager(ServerAttributeNames.FAIRSHARE_ACCOUNT, ValueType.SHARES, null, BERTH),
          manager(ServerAttributeNames.RESOURCES_DEFAULT, ValueType.RESOURCE, null, TORQUE),
          manager(ServerAttributeNames.RESOURCES_MAX, ValueType.RESOURCE, null, TORQUE),
          manager(ServerAttributeNames.MAX_RUNNING, ValueType.INTEGER, null, TORQUE),
          manager(ServerAttributeNames.MAX_USER_RUN, ValueType.INTEGER, null, TORQUE),
          manager(ServerAttributeNames.MAX_USER_QUEUABLE, ValueType.COUNT, null, TORQUE),
          manager(ServerAttributeNames.ACL_ROOTS, ValueType.LIST, null, TORQUE),
          manager(ServerAttributeNames.SUBMIT_HOSTS, ValueType.LIST, null, TORQUE),
          manager(ServerAttributeNames.ACL_HOST_ENABLE, ValueType.BOOLEAN, null, TORQUE),
          manager(ServerAttributeNames.ACL_HOSTS, ValueType.LIST, null, TORQUE),
          // OpenPBS's name; its default is 100mb, ours stays under the 1 MiB a Kafka journal
          // record may have by default, since the journal keeps each script with its job.
          new AttributeDef(
              ServerAttributeNames.JOBSCRIPT_MAX_SIZE,
              ValueType.SIZE,
              SetBy.MANAGER,
              "512kb",
              BYTES,
              OPENPBS),
          manager(ServerAttributeNames.MAIL_DOMAIN, ValueType.STRING, null, TORQUE),
          manager(ServerAttributeNames.MAIL_FROM, ValueType.STRING, "adm", TORQUE),
          manager(ServerAttributeNames.MAIL_SUBJECT_FMT, ValueType.STRING, null, TORQUE),
          manager(ServerAttributeNames.MAIL_BODY_FMT, ValueType.STRING, null, TORQUE),
          manager(ServerAttributeNames.NO_MAIL_FORCE, ValueType.BOOLEAN, "False", TORQUE),
          new AttributeDef(
              ServerAttributeNames.SENDMAIL_PATH,
              ValueType.STRING,
              SetBy.ROOT_ON_SERVER,
              null,
              NONE,
              BERTH),
          manager(ServerAttributeNames.COMMENT, ValueType.STRING, null, TORQUE),
          manager(ServerAttributeNames.NEXT_JOB_NUMBER, ValueType.INTEGER, null, TORQUE),
          kept(ServerAttributeNames.SERVER_STATE, ValueType.STRING),
          kept(ServerAttributeNames.TOTAL_JOBS, ValueType.INTEGER),
          kept(ServerAttributeNames.STATE_COUNT, ValueType.STRING),
          kept(ServerAttributeNames.PBS_VERSION, ValueType.STRING))),

  QUEUE(
      List.of(
          manager(QueueAttributeNames.QUEUE_TYPE, ValueType.STRING, null, TORQUE),
          manager(QueueAttributeNames.ENABLED, ValueType.BOOLEAN, null, TORQUE),
          manager(QueueAttributeNames.STARTED, ValueType.BOOLEAN, null, TORQUE),
          manager(QueueAttributeNames.PRIORITY, ValueType.INTEGER, null, TORQUE),
          manager(QueueAttributeNames.MAX_QUEUABLE, ValueType.COUNT, null, TORQUE),
          manager(QueueAttributeNames.MAX_USER_QUEUABLE, ValueType.COUNT, null, TORQUE),
          manager(QueueAttributeNames.MAX_RUNNING, ValueType.INTEGER, null, TORQUE),
          manager(QueueAttributeNames.MAX_USER_RUN, ValueType.INTEGER, null, TORQUE),
          seconds(QueueAttributeNames.KEEP_COMPLETED, ValueType.INTEGER, null, TORQUE),
          seconds(QueueAttributeNames.KILL_DELAY, ValueType.INTEGER, null, TORQUE),
          manager(QueueAttributeNames.RESOURCES_DEFAULT, ValueType.RESOURCE, null, TORQUE),
          manager(QueueAttributeNames.RESOURCES_MAX, ValueType.RESOURCE, null, TORQUE),
          manager(QueueAttributeNames.RESOURCES_MIN, ValueType.RESOURCE, null, TORQUE),
          manager(QueueAttributeNames.ACL_USER_ENABLE, ValueType.BOOLEAN, null, TORQUE),
          manager(QueueAttributeNames.ACL_USERS, ValueType.LIST, null, TORQUE),
          manager(QueueAttributeNames.PREEMPTOR, ValueType.BOOLEAN, null, BERTH),
          manager(QueueAttributeNames.PREEMPT_MODE, ValueType.PREEMPT_MODE, null, BERTH),
          manager(QueueAttributeNames.COMMENT, ValueType.STRING, null, BERTH),
          kept(QueueAttributeNames.TOTAL_JOBS, ValueType.INTEGER),
          kept(QueueAttributeNames.STATE_COUNT, ValueType.STRING))),

  NODE(
      List.of(
          manager(NodeAttributeNames.NP, ValueType.COUNT, null, TORQUE),
          manager(NodeAttributeNames.PROPERTIES, ValueType.LIST, null, TORQUE),
          manager(NodeAttributeNames.GPUS, ValueType.COUNT, null, TORQUE),
          new AttributeDef(
              NodeAttributeNames.STATE, ValueType.LIST, SetBy.OPERATOR, null, NONE, TORQUE),
          new AttributeDef(
              NodeAttributeNames.NOTE, ValueType.STRING, SetBy.OPERATOR, null, NONE, TORQUE),
          manager(NodeAttributeNames.NTYPE, ValueType.STRING, "cluster", TORQUE),
          kept(NodeAttributeNames.JOBS, ValueType.STRING),
          kept(NodeAttributeNames.STATUS, ValueType.STRING),
          kept(NodeAttributeNames.PHYSMEM, ValueType.STRING))),

  /**
   * What qsub and qalter may send for a job (docs/qsub.md), in the order qstat -f shows them
   * (Torque's), then those it does not show; the server refuses any other name, those of {@link
   * #JOB_STATUS} too.
   */
  JOB(
      List.of(
          owner(AttributeNames.JOB_NAME, ValueType.STRING, TORQUE),
          owner(AttributeNames.ACCOUNT_NAME, ValueType.STRING, TORQUE),
          owner(AttributeNames.CHECKPOINT, ValueType.STRING, TORQUE),
          owner(AttributeNames.DEPEND, ValueType.STRING, TORQUE),
          owner(AttributeNames.ERROR_PATH, ValueType.STRING, TORQUE),
          new AttributeDef(
              AttributeNames.EXECUTION_TIME,
              ValueType.INTEGER,
              SetBy.SUBMITTER,
              null,
              Unit.EPOCH_SECONDS,
              TORQUE),
          owner(AttributeNames.GROUP_LIST, ValueType.STRING, TORQUE),
          owner(AttributeNames.HOLD_TYPES, ValueType.STRING, TORQUE),
          submitter(AttributeNames.INTERACTIVE, ValueType.BOOLEAN, TORQUE),
          submitter(AttributeNames.INTER_CMD, ValueType.STRING, TORQUE),
          owner(AttributeNames.JOIN_PATH, ValueType.STRING, TORQUE),
          owner(AttributeNames.KEEP_FILES, ValueType.STRING, TORQUE),
          owner(AttributeNames.MAIL_POINTS, ValueType.STRING, TORQUE),
          owner(AttributeNames.MAIL_USERS, ValueType.STRING, TORQUE),
          owner(AttributeNames.OUTPUT_PATH, ValueType.STRING, TORQUE),
          owner(AttributeNames.PRIORITY, ValueType.INTEGER, TORQUE),
          owner(AttributeNames.RERUNABLE, ValueType.BOOLEAN, TORQUE),
          owner(AttributeNames.RESOURCE_LIST, ValueType.RESOURCE, TORQUE),
          owner(AttributeNames.SHELL_PATH_LIST, ValueType.STRING, TORQUE),
          owner(AttributeNames.VARIABLE_LIST, ValueType.STRING, TORQUE),
          submitter(AttributeNames.SUBMIT_ARGS, ValueType.STRING, TORQUE),
          submitter(AttributeNames.JOB_ARRAY_REQUEST, ValueType.STRING, TORQUE),
          owner(AttributeNames.UMASK, ValueType.STRING, TORQUE),
          owner(AttributeNames.JOB_RADIX, ValueType.STRING, TORQUE),
          owner(AttributeNames.NODE_EXCLUSIVE, ValueType.BOOLEAN, TORQUE),
          submitter(AttributeNames.SUBMIT_HOST, ValueType.STRING, TORQUE),
          owner(AttributeNames.INIT_WORK_DIR, ValueType.STRING, TORQUE),
          submitter(AttributeNames.DESTINATION, ValueType.STRING, TORQUE),
          owner(AttributeNames.X, ValueType.STRING, TORQUE),
          owner(AttributeNames.WORK_DIR, ValueType.STRING, BERTH),
          owner(AttributeNames.CONTAINER_IMAGE, ValueType.STRING, BERTH),
          owner(AttributeNames.CONTAINER_MOUNTS, ValueType.STRING, BERTH),
          owner(AttributeNames.CONTAINER_WORKDIR, ValueType.STRING, BERTH),
          owner(AttributeNames.CONTAINER_ENV, ValueType.STRING, BERTH),
          owner(AttributeNames.CONTAINER_WRITABLE, ValueType.BOOLEAN, BERTH),
          owner(AttributeNames.CONTAINER_REMAP_ROOT, ValueType.BOOLEAN, BERTH),
          owner(AttributeNames.CONTAINER_NAME, ValueType.STRING, BERTH),
          submitter(AttributeNames.SUBMIT_STYLE, ValueType.STRING, BERTH))),

  /**
   * What qstat -f shows of a job besides {@link #JOB}'s, which nobody sets (docs/qsub.md): what the
   * server keeps (job_state, exec_host, ...), then Berth's, the scheduler's among them, worked out
   * for each answer. In the order qstat -f shows them (Torque's, then Berth's own).
   */
  JOB_STATUS(
      List.of(
          kept(AttributeNames.JOB_OWNER, ValueType.STRING),
          kept(AttributeNames.RESOURCES_USED, ValueType.RESOURCE),
          kept(AttributeNames.JOB_STATE, ValueType.STRING),
          kept(AttributeNames.QUEUE, ValueType.STRING),
          kept(AttributeNames.SERVER, ValueType.STRING),
          moment(AttributeNames.CTIME),
          kept(AttributeNames.EXEC_GPUS, ValueType.STRING),
          kept(AttributeNames.EXEC_HOST, ValueType.STRING),
          moment(AttributeNames.MTIME),
          moment(AttributeNames.QTIME),
          kept(AttributeNames.SESSION_ID, ValueType.INTEGER),
          kept(AttributeNames.EUSER, ValueType.STRING),
          kept(AttributeNames.EGROUP, ValueType.STRING),
          kept(AttributeNames.COMMENT, ValueType.STRING),
          moment(AttributeNames.ETIME),
          kept(AttributeNames.EXIT_STATUS, ValueType.INTEGER),
          kept(AttributeNames.JOB_ARRAY_ID, ValueType.INTEGER),
          moment(AttributeNames.START_TIME),
          new AttributeDef(
              AttributeNames.WALLTIME, ValueType.RESOURCE, SetBy.NOBODY, null, SECONDS, TORQUE),
          kept(AttributeNames.START_COUNT, ValueType.INTEGER),
          moment(AttributeNames.COMP_TIME),
          kept(AttributeNames.CGROUP_ENABLE, ValueType.BOOLEAN, BERTH),
          kept(AttributeNames.EXIT_REASON, ValueType.STRING, BERTH),
          kept(AttributeNames.SCHED_PRIORITY, ValueType.INTEGER, BERTH),
          kept(AttributeNames.SCHED_PRIORITY_FACTORS, ValueType.RESOURCE, BERTH),
          new AttributeDef(
              AttributeNames.ESTIMATED,
              ValueType.RESOURCE,
              SetBy.NOBODY,
              null,
              Unit.EPOCH_SECONDS,
              OPENPBS),
          kept(AttributeNames.PLANNED_WALLTIME, ValueType.STRING, BERTH)));

  private final List<AttributeDef> definitions;
  private final Map<String, AttributeDef> byName = new LinkedHashMap<>();

  AttributeTable(List<AttributeDef> definitions) {
    this.definitions = definitions;
    for (AttributeDef d : definitions) {
      if (byName.put(d.name(), d) != null) {
        throw new IllegalStateException(name() + " defines " + d.name() + " twice");
      }
    }
  }

  /** Every attribute, in the order of docs/qmgr.md. */
  public List<AttributeDef> definitions() {
    return definitions;
  }

  /** The attribute named exactly {@code name}, without a resource ({@code resources_max}). */
  public Optional<AttributeDef> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The attribute whatever the case of {@code name}: qmgr reads {@code priority} as Priority. */
  public Optional<AttributeDef> findIgnoringCase(String name) {
    AttributeDef exact = byName.get(name);
    if (exact != null) {
      return Optional.of(exact);
    }
    return definitions.stream()
        .filter(d -> d.name().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT)))
        .findFirst();
  }

  /** What each attribute that has a default reads as while unset. */
  public Map<String, String> defaults() {
    Map<String, String> defaults = new LinkedHashMap<>();
    definitions.stream()
        .filter(d -> d.defaultValue() != null)
        .forEach(d -> defaults.put(d.name(), d.defaultValue()));
    return Map.copyOf(defaults);
  }

  private static AttributeDef manager(
      String name, ValueType type, String defaultValue, Spelling spelling) {
    Unit unit = type == ValueType.DURATION ? SECONDS : type == ValueType.SIZE ? BYTES : NONE;
    return new AttributeDef(name, type, SetBy.MANAGER, defaultValue, unit, spelling);
  }

  private static AttributeDef seconds(
      String name, ValueType type, String defaultValue, Spelling spelling) {
    return new AttributeDef(name, type, SetBy.MANAGER, defaultValue, SECONDS, spelling);
  }

  private static AttributeDef owner(String name, ValueType type, Spelling spelling) {
    return new AttributeDef(name, type, SetBy.OWNER, null, NONE, spelling);
  }

  private static AttributeDef submitter(String name, ValueType type, Spelling spelling) {
    return new AttributeDef(name, type, SetBy.SUBMITTER, null, NONE, spelling);
  }

  private static AttributeDef kept(String name, ValueType type) {
    return kept(name, type, TORQUE);
  }

  private static AttributeDef kept(String name, ValueType type, Spelling spelling) {
    return new AttributeDef(name, type, SetBy.NOBODY, null, NONE, spelling);
  }

  /** A moment the server keeps of a job (ctime), in epoch seconds. */
  private static AttributeDef moment(String name) {
    return new AttributeDef(
        name, ValueType.INTEGER, SetBy.NOBODY, null, Unit.EPOCH_SECONDS, TORQUE);
  }
}
