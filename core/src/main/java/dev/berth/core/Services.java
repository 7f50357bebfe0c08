package dev.berth.core;

/**
 * Names under which Berth's actors find each other in the Pekko receptionist. The server and the
 * moms each make their typed service key from these, without depending on each other.
 */
public final class Services {
  /** The active server's inbox for letters from moms (Sealed letters). */
  public static final String SERVER = "berth-server";

  /** The inbox of the mom of one node (Sealed letters): this prefix + node name. */
  public static final String MOM_PREFIX = "berth-mom-";

  private Services() {}
}
