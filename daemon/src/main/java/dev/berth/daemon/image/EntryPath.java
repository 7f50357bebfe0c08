package dev.berth.daemon.image;

import dev.berth.core.ControlCharacters;
import java.util.ArrayList;
import java.util.List;

/**
 * A path inside an image as an archive names it ({@code ./usr/bin/env}, {@code etc/}), reduced to
 * its components. Names that could reach outside the tree they are unpacked into, absolute ones and
 * those with a {@code ..} component, are refused rather than cleaned up: no honest tool writes
 * them.
 */
final class EntryPath {
  private EntryPath() {}

  /**
   * The components of {@code name}, without empty and {@code .} ones: none for the root itself.
   *
   * @throws IllegalArgumentException for an absolute name or one with a {@code ..} component
   */
  static List<String> components(String name) {
    if (name.startsWith("/")) {
      throw new IllegalArgumentException("absolute path '" + show(name) + "' refused");
    }
    List<String> parts = new ArrayList<>();
    for (String part : name.split("/", -1)) {
      if (part.equals("..")) {
        throw new IllegalArgumentException("path '" + show(name) + "' with '..' refused");
      }
      if (!part.isEmpty() && !part.equals(".")) {
        parts.add(part);
      }
    }
    return parts;
  }

  /** The components joined with {@code /}; the root is the empty string. */
  static String join(List<String> components) {
    return String.join("/", components);
  }

  /** A name as it may be printed: control characters escaped. */
  static String show(String name) {
    return ControlCharacters.escape(name);
  }
}
