package dev.berth.server.command.job;

import dev.berth.core.ControlCharacters;
import dev.berth.core.image.UserData;
import dev.berth.proto.Container;
import dev.berth.proto.Error;
import dev.berth.server.command.AttributeSpec;
import dev.berth.server.command.CommandException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code -W container_*} attributes (pyxis's {@code --container-*} options), checked here since
 * every node takes them as they are: paths absolute and free of {@code ..}, mounts {@code
 * source:target[:ro|:rw]}, names that are one plain file name. Whether the image and the mount
 * sources exist and are the owner's to read is known only where the job runs, as the owner.
 */
final class ContainerAttributes {
  static final String IMAGE = "container_image";
  static final String MOUNTS = "container_mounts";
  static final String WORKDIR = "container_workdir";
  static final String WRITABLE = "container_writable";
  static final String REMAP_ROOT = "container_remap_root";
  static final String NAME = "container_name";
  static final String ENV = "container_env";

  static final Set<String> ALL = Set.of(IMAGE, MOUNTS, WORKDIR, WRITABLE, REMAP_ROOT, NAME, ENV);

  /** container_env: at most this many names (the starter's bound), each of at most 256 bytes. */
  private static final int MAX_ENV = 64;

  private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,255}");

  /** An image or container name: what `berth image` files them under. */
  private static final int MAX_MOUNTS = 64;

  private static final int MAX_PATH = 4096;

  private ContainerAttributes() {}

  static void apply(Container.Builder c, String attribute, String value) {
    String v = value.trim();
    switch (attribute) {
      case IMAGE -> c.setImage(image(v));
      case MOUNTS -> c.clearMounts().addAllMounts(mounts(v));
      case WORKDIR -> c.setWorkdir(path(WORKDIR, v, false));
      case WRITABLE -> c.setWritable(JobAttributes.bool(WRITABLE, v));
      case REMAP_ROOT -> c.setRemapRoot(JobAttributes.bool(REMAP_ROOT, v));
      case NAME -> c.setName(plainName(NAME, v));
      case ENV -> c.clearEnv().addAllEnv(variables(v));
      default -> throw new IllegalArgumentException(attribute);
    }
  }

  /**
   * A container needs an image, or the name of a named container that the first job of that name
   * made from one (its node refuses the job if there is none).
   */
  static void checkWhole(Container c) {
    if (c.getImage().isEmpty() && c.getName().isEmpty()) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "container attributes need " + IMAGE + " (or " + NAME + " of an existing container)");
    }
  }

  private static String image(String v) {
    if (v.contains("/")) {
      return path(IMAGE, v, false);
    }
    return plainName(IMAGE, v);
  }

  /** {@code source:target[:ro|:rw]}, comma separated. */
  private static List<Container.Mount> mounts(String v) {
    List<String> items = AttributeSpec.items(v);
    if (items.isEmpty() || items.size() > MAX_MOUNTS) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          MOUNTS + " '" + v + "' must name 1 to " + MAX_MOUNTS + " mounts (source:target[:ro])");
    }
    return items.stream().map(ContainerAttributes::mount).toList();
  }

  private static Container.Mount mount(String item) {
    String[] parts = item.split(":", -1);
    if (parts.length < 2 || parts.length > 3) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          MOUNTS + ": '" + item + "' is not source:target[:ro] (paths cannot hold ':' or ',')");
    }
    boolean readOnly = false;
    if (parts.length == 3) {
      switch (parts[2]) {
        case "ro" -> readOnly = true;
        case "rw" -> readOnly = false;
        default ->
            throw new CommandException(
                Error.Code.BAD_VALUE,
                MOUNTS + ": '" + item + "' ends in '" + parts[2] + "', not ro or rw");
      }
    }
    return Container.Mount.newBuilder()
        .setSource(path(MOUNTS, parts[0], true))
        .setTarget(path(MOUNTS, parts[1], false))
        .setReadOnly(readOnly)
        .build();
  }

  /**
   * An absolute path without {@code ..} (a source may also start with {@code $HOME} or {@code
   * ${HOME}}, the owner's home on the node).
   */
  private static String path(String attribute, String v, boolean homeAllowed) {
    String rest = v;
    if (homeAllowed && (v.equals("$HOME") || v.startsWith("$HOME/"))) {
      rest = v.substring("$HOME".length());
    } else if (homeAllowed && (v.equals("${HOME}") || v.startsWith("${HOME}/"))) {
      rest = v.substring("${HOME}".length());
    } else if (!v.startsWith("/")) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          attribute
              + " '"
              + v
              + "' must be an absolute path"
              + (homeAllowed ? " (or start with $HOME)" : ""));
    }
    if (v.length() > MAX_PATH || List.of(rest.split("/")).contains("..")) {
      throw new CommandException(
          Error.Code.BAD_VALUE, attribute + " '" + v + "' must not hold '..' or be that long");
    }
    if (rest.contains("$")) {
      throw new CommandException(
          Error.Code.BAD_VALUE, attribute + " '" + v + "': only $HOME is expanded, at the start");
    }
    return v;
  }

  /** container_env's names, comma separated, each once. */
  private static List<String> variables(String v) {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    for (String item : v.split(",", -1)) {
      String name = item.trim();
      if (!VARIABLE.matcher(name).matches()) {
        throw new CommandException(
            Error.Code.BAD_VALUE,
            ENV
                + " '"
                + ControlCharacters.escape(
                    name.length() > 64 ? name.substring(0, 64) + "..." : name)
                + "' is not a variable's name (letters, digits and _, not first a digit)");
      }
      names.add(name);
      if (names.size() > MAX_ENV) {
        throw new CommandException(
            Error.Code.BAD_VALUE, ENV + " names more than " + MAX_ENV + " variables");
      }
    }
    return List.copyOf(names);
  }

  private static String plainName(String attribute, String v) {
    if (!UserData.isName(v)) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          attribute + " '" + v + "' must be a path with '/' or a name of " + UserData.NAME_RULE);
    }
    return v;
  }
}
