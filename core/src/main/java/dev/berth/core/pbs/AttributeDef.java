package dev.berth.core.pbs;

/**
 * One attribute of the server, a queue, a node or a job: its name as qmgr and qsub spell it, its
 * type, who may set it, what it reads as when unset ({@code null}: nothing), the unit of a number,
 * and whose name it is.
 */
public record AttributeDef(
    String name, ValueType type, SetBy setBy, String defaultValue, Unit unit, Spelling spelling) {

  /** What a number counts; NONE for a value that is not a measure. */
  public enum Unit {
    NONE,
    SECONDS,
    BYTES,
    /** A moment: seconds since 1970-01-01 UTC. */
    EPOCH_SECONDS
  }

  public boolean readOnly() {
    return setBy == SetBy.NOBODY;
  }
}
