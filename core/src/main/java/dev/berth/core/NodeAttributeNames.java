package dev.berth.core;

/**
 * Torque's node attribute names, as qmgr sets and prints them and pbsnodes shows them: those of
 * {@link dev.berth.core.pbs.AttributeTable#NODE}, in its order.
 */
public final class NodeAttributeNames {
  public static final String NP = "np";
  public static final String PROPERTIES = "properties";
  public static final String GPUS = "gpus";

  /** The operator's {@code offline} as qmgr and pbsnodes set it; pbsnodes shows the whole state. */
  public static final String STATE = "state";

  public static final String NOTE = "note";
  public static final String NTYPE = "ntype";
  public static final String JOBS = "jobs";
  public static final String STATUS = "status";
  public static final String PHYSMEM = "physmem";

  private NodeAttributeNames() {}
}
