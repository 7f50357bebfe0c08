package dev.berth.daemon.image;

import dev.berth.core.image.UserData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * Where a user's images and named containers live ({@link UserData}). {@code images/} holds the
 * imported {@code NAME.sqsh} files and {@code containers/NAME/} the unpacked ones. Imports stage
 * their trees in the data directory itself (hidden names), on the file system their results go to.
 */
record DataDirectory(Path root) {
  /** Names become file names and job attributes: letters, digits and {@code . _ + -}. */
  static final String IMAGE_SUFFIX = ".sqsh";

  /**
   * The data directory the environment names.
   *
   * @throws IllegalArgumentException for a relative BERTH_DATA_PATH, which a job's mom (starting in
   *     another directory) could not find
   */
  static DataDirectory resolve(Map<String, String> env) {
    String explicit = env.get("BERTH_DATA_PATH");
    if (explicit != null && !explicit.isEmpty() && !explicit.startsWith("/")) {
      throw new IllegalArgumentException(
          "BERTH_DATA_PATH must be an absolute path, not '" + EntryPath.show(explicit) + "'");
    }
    return new DataDirectory(
        UserData.directory(env::get, env.getOrDefault("HOME", System.getProperty("user.home"))));
  }

  Path images() {
    return root.resolve("images");
  }

  Path containers() {
    return root.resolve("containers");
  }

  /** The file of the image {@code name}. */
  Path image(String name) {
    return images().resolve(name + IMAGE_SUFFIX);
  }

  Path container(String name) {
    return containers().resolve(name);
  }

  /** Makes the directories that are missing, private to the user (0700). */
  DataDirectory create() throws IOException {
    for (Path dir : new Path[] {images(), containers()}) {
      Files.createDirectories(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    return this;
  }

  /**
   * {@code name} if it may name an image or container.
   *
   * @throws IllegalArgumentException saying what a name may be
   */
  static String checkName(String name) {
    if (!UserData.isName(name)) {
      throw new IllegalArgumentException(
          "'"
              + EntryPath.show(name)
              + "' cannot name an image or container: use "
              + UserData.NAME_RULE);
    }
    return name;
  }
}
