package dev.berth.core.pbs;

/** Whose name an attribute takes, so that a site's scripts carry over. */
public enum Spelling {
  /** Torque 6's name and meaning. */
  TORQUE,
  /** OpenPBS's name where Torque has none (jobscript_max_size). */
  OPENPBS,
  /** Berth's own: neither has the setting. */
  BERTH
}
