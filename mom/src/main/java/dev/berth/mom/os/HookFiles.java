package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Optional;
import java.util.Set;

/**
 * The site's prologue and epilogue scripts in the mom's hook directory (Torque's mom_priv). A
 * script runs as root or as every job's owner, so only one root alone could have written is run:
 * owned by the mom's user (root at a site; the user whose personal cluster it is), a regular file
 * (not a link), readable and executable by that user and writable by nobody else, in a directory
 * that is that user's and writable by nobody else; a script for the owner ({@code .user}) must also
 * be readable and executable by others. A missing script is no error.
 */
public final class HookFiles {
  private HookFiles() {}

  /** A script that is there but must not run; the message says why. */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /**
   * The script {@code name} in {@code dir}, if there is one.
   *
   * @param forOwner whether it runs as the job's owner
   * @throws Refused when it is there but could have been written by someone other than root
   */
  public static Optional<Path> find(Path dir, String name, boolean forOwner) throws Refused {
    Path script = dir.resolve(name);
    PosixFileAttributes attrs;
    try {
      attrs = Files.readAttributes(script, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new Refused(script + " cannot be read: " + e.getMessage());
    }
    if (!attrs.isRegularFile()) {
      throw new Refused(script + " is not a regular file");
    }
    String problem = rootsAlone(script, attrs);
    if (problem == null) {
      problem = rootsAlone(dir, attributes(dir));
    }
    Set<PosixFilePermission> p = attrs.permissions();
    if (problem == null
        && !p.containsAll(
            Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_EXECUTE))) {
      problem = script + " is not readable and executable by its owner";
    }
    if (problem == null
        && forOwner
        && !p.containsAll(
            Set.of(PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_EXECUTE))) {
      problem = script + " runs as the job's owner but is not readable and executable by others";
    }
    if (problem != null) {
      throw new Refused(problem);
    }
    return Optional.of(script);
  }

  private static PosixFileAttributes attributes(Path dir) throws Refused {
    try {
      return Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      throw new Refused(dir + " cannot be read: " + e.getMessage());
    }
  }

  /** The user the mom runs as: root at a site; the user of a personal cluster. */
  private static final String MOM_USER = System.getProperty("user.name");

  /**
   * Why {@code file} may have been written by someone other than the mom's user (root at a site);
   * null if it cannot.
   */
  private static String rootsAlone(Path file, PosixFileAttributes attrs) {
    if (!attrs.owner().getName().equals(MOM_USER)) {
      return file + " is not owned by " + MOM_USER + " (owner " + attrs.owner().getName() + ")";
    }
    Set<PosixFilePermission> p = attrs.permissions();
    if (p.contains(PosixFilePermission.GROUP_WRITE)
        || p.contains(PosixFilePermission.OTHERS_WRITE)) {
      return file + " is writable by others than its owner";
    }
    return null;
  }
}
