package dev.berth.daemon.image;

import dev.berth.core.image.SquashfsImage;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * A user's images and named containers in their data directory: listing them, unpacking an image
 * into a named container (what enroot calls create), and removing either.
 */
final class ImageStore {
  /** What the store holds. */
  enum Kind {
    IMAGE,
    CONTAINER;

    String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One image or container; {@code bytes} is -1 for a container (it would take a walk). */
  record Item(Kind kind, String name, Path path, long bytes, Instant modified) {}

  private final DataDirectory data;

  ImageStore(DataDirectory data) {
    this.data = data;
  }

  /** The images, then the containers, each by name; hidden work in progress left out. */
  List<Item> list() throws IOException {
    List<Item> items = new ArrayList<>();
    for (Path file : entries(data.images())) {
      String name = file.getFileName().toString();
      BasicFileAttributes a = lstat(file);
      if (a != null && a.isRegularFile() && name.endsWith(DataDirectory.IMAGE_SUFFIX)) {
        items.add(
            new Item(
                Kind.IMAGE,
                name.substring(0, name.length() - DataDirectory.IMAGE_SUFFIX.length()),
                file,
                a.size(),
                a.lastModifiedTime().toInstant()));
      }
    }
    for (Path dir : entries(data.containers())) {
      BasicFileAttributes a = lstat(dir);
      if (a != null && a.isDirectory()) {
        items.add(
            new Item(
                Kind.CONTAINER,
                dir.getFileName().toString(),
                dir,
                -1,
                a.lastModifiedTime().toInstant()));
      }
    }
    items.sort(Comparator.comparing(Item::kind).thenComparing(Item::name));
    return items;
  }

  /**
   * The image file {@code image} names: a path when it has a {@code /} or names an existing file,
   * else an image in the data directory ({@code NAME} or {@code NAME.sqsh}).
   */
  Path findImage(String image) {
    Path path = Path.of(image);
    if (image.contains("/") || Files.isRegularFile(path)) {
      return path;
    }
    return data.images().resolve(withSuffix(image));
  }

  /**
   * Unpacks the image file {@code image} into the new container {@code name}: into a hidden
   * directory first, renamed when complete, so that a container that is there is whole.
   */
  Path createContainer(Path image, String name) throws IOException {
    Path target = data.container(DataDirectory.checkName(name));
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("container " + name + " exists (" + target + ")");
    }
    SquashfsImage.check(image, Long.MAX_VALUE);
    data.create();
    try (Scratch scratch = new Scratch()) {
      Path unpacking =
          scratch.add(Files.createTempDirectory(data.containers(), ".create-" + name + "-"));
      new SquashfsTools(scratch).unsquash(image, unpacking);
      Files.move(unpacking, target);
      scratch.keep(unpacking);
    }
    return target;
  }

  /**
   * Removes the image or container {@code name} ({@code kind} null for either, if only one of them
   * has the name) and returns what it removed.
   */
  Item remove(String name, Kind kind) throws IOException {
    if (name.isEmpty() || name.contains("/") || name.startsWith(".")) {
      throw new IOException("'" + EntryPath.show(name) + "': names with / or a leading . refused");
    }
    Path image = data.images().resolve(withSuffix(name));
    Path container = data.container(name);
    boolean isImage = kind != Kind.CONTAINER && lstat(image) != null;
    boolean isContainer = kind != Kind.IMAGE && lstat(container) != null;
    if (isImage && isContainer) {
      throw new IOException(
          name + " names an image and a container; say which with --image or --container");
    }
    if (!isImage && !isContainer) {
      throw new IOException(
          "no "
              + (kind == null ? "image or container" : kind.word())
              + " named "
              + EntryPath.show(name)
              + " in "
              + data.root());
    }
    Path path = isImage ? image : container;
    Trees.delete(path);
    return new Item(isImage ? Kind.IMAGE : Kind.CONTAINER, name, path, -1, null);
  }

  private static String withSuffix(String name) {
    return name.endsWith(DataDirectory.IMAGE_SUFFIX) ? name : name + DataDirectory.IMAGE_SUFFIX;
  }

  /** The visible entries of {@code dir}; none if it does not exist. */
  private static List<Path> entries(Path dir) throws IOException {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path entry : stream) {
        if (!entry.getFileName().toString().startsWith(".")) {
          entries.add(entry);
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return entries;
  }

  private static BasicFileAttributes lstat(Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    }
  }
}
