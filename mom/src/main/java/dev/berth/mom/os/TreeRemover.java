package dev.berth.mom.os;

import java.nio.file.Path;

/**
 * Removes a file tree that a job's owner controls (its TMPDIR, its output spool, an image it
 * unpacked) as that owner, through {@link NativeLibrary} (berth-native.c says how): the calling
 * thread takes the owner's file-system identity for the length of the call only, nothing is ever
 * opened by path or through a link, and however deep or wide the tree, a call holds at most {@link
 * #MOST_OPEN} directories open, reads each a batch of entries at a time, and stops after a budget
 * of removals. The tree's own name goes with the caller's identity, since its directory is the
 * mom's.
 */
public final class TreeRemover {
  /**
   * Directories one call holds open at most: the tree's directory, 32 levels of the tree
   * (berth-native.c's TREE_LEVELS; a deeper directory is moved up to the top instead of entered),
   * and one being looked at.
   */
  public static final int MOST_OPEN = 34;

  /**
   * What one call removes (or moves up) at most before it returns: a few seconds of one thread on a
   * local disk, so that other trees and a stopping mom do not wait behind a huge one.
   */
  public static final long SLICE = 1_000_000;

  private TreeRemover() {}

  public enum State {
    /** Nothing is left of the tree (or there was none). */
    REMOVED,
    /** The budget ran out first: call again. */
    MORE,
    /** What is left cannot be removed as its owner: {@link Outcome#problem()} says why. */
    FAILED
  }

  /**
   * @param removed the entries removed
   * @param movedUp the directories moved up to the top because they lay too deep
   * @param mostOpen the most directories open at once, the tree's parent included
   * @param problem why the tree could not be removed, with no name from the tree in it; "" unless
   *     {@link State#FAILED}
   */
  public record Outcome(State state, long removed, long movedUp, int mostOpen, String problem) {}

  /**
   * Removes {@code name} in {@code parent} (a directory whose path the mom controls) as user {@code
   * uid} and group {@code gid}, or as the mom itself when {@code uid} is negative or the mom's own,
   * doing at most {@code budget} removals.
   */
  public static Outcome remove(Path parent, String name, int uid, int gid, long budget) {
    if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException("not the name of an entry: " + name);
    }
    NativeLibrary.require();
    long[] counts = new long[4];
    String problem = removeAs(parent.toString(), name, uid, gid, budget, counts);
    return new Outcome(
        State.values()[(int) counts[0]], counts[1], counts[2], (int) counts[3], problem);
  }

  private static native String removeAs(
      String parent, String name, int uid, int gid, long budget, long[] counts);
}
