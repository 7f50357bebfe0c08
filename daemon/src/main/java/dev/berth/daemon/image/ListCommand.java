package dev.berth.daemon.image;

import dev.berth.core.ControlCharacters;
import dev.berth.tools.format.JsonWriter;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code berth image list}: the user's images and named containers. */
@Command(name = "list", description = "List your images and named containers.")
final class ListCommand implements Callable<Integer> {
  private static final DateTimeFormatter WHEN =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    List<ImageStore.Item> items = new ImageStore(DataDirectory.resolve(System.getenv())).list();
    System.out.print(json ? json(items) : table(items));
    return 0;
  }

  static String table(List<ImageStore.Item> items) {
    if (items.isEmpty()) {
      return "";
    }
    int width = "NAME".length();
    for (ImageStore.Item item : items) {
      width = Math.max(width, ControlCharacters.escape(item.name()).length());
    }
    String format = "%-" + width + "s  %-9s  %10s  %s%n";
    StringBuilder out =
        new StringBuilder(String.format(format, "NAME", "KIND", "SIZE", "MODIFIED"));
    for (ImageStore.Item item : items) {
      out.append(
          String.format(
              format,
              ControlCharacters.escape(item.name()),
              item.kind().word(),
              item.bytes() < 0 ? "-" : HumanBytes.of(item.bytes()),
              WHEN.format(item.modified())));
    }
    return out.toString();
  }

  static String json(List<ImageStore.Item> items) {
    JsonWriter out = new JsonWriter().beginObject();
    for (ImageStore.Kind kind : ImageStore.Kind.values()) {
      out.beginArray(kind.word() + "s");
      for (ImageStore.Item item : items) {
        if (item.kind() == kind) {
          out.beginObject()
              .field("name", item.name())
              .field("path", item.path().toString())
              .field("modified", item.modified().toString());
          if (item.bytes() >= 0) {
            out.field("bytes", item.bytes());
          }
          out.endObject();
        }
      }
      out.endArray();
    }
    return out.endObject().toString();
  }
}
