package dev.berth.daemon.image;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What of an image's config a job needs besides its files: the environment ({@code Env}, {@code
 * KEY=VALUE} strings) and the working directory. The import writes them into the image, one {@code
 * KEY=VALUE} a line in {@code /etc/berth/environment} and the directory in {@code
 * /etc/berth/workdir}, so that the image file is all a job needs.
 */
record ImageConfig(List<String> env, String workingDir) {
  static final String ENVIRONMENT_FILE = "etc/berth/environment";
  static final String WORKDIR_FILE = "etc/berth/workdir";

  /**
   * Reads the {@code config} member of an OCI or Docker image config; entries that one line cannot
   * carry (a newline in a value) or that are no {@code KEY=VALUE} are left out and reported to
   * {@code warn}.
   */
  static ImageConfig read(Map<String, Object> document, Consumer<String> warn) {
    Object config = document.get("config");
    if (config == null) {
      return new ImageConfig(List.of(), null);
    }
    Map<String, Object> members = Json.object(config, "the image config's \"config\"");
    List<String> env = new ArrayList<>();
    Object list = members.get("Env");
    if (list != null) {
      for (Object entry : Json.array(list, "the image config's Env")) {
        String variable = Json.string(entry, "an Env entry");
        if (variable.indexOf('=') > 0 && oneLine(variable)) {
          env.add(variable);
        } else {
          warn.accept(
              "the image's environment entry '"
                  + EntryPath.show(variable)
                  + "' is not KEY=VALUE on one line: left out");
        }
      }
    }
    String workingDir = null;
    Object dir = members.get("WorkingDir");
    String value = dir == null ? "" : Json.string(dir, "the image config's WorkingDir");
    if (value.startsWith("/") && oneLine(value)) {
      workingDir = value;
    } else if (!value.isEmpty()) { // Docker writes "" for none
      warn.accept(
          "the image's working directory '"
              + EntryPath.show(value)
              + "' is not an absolute path on one line: left out");
    }
    return new ImageConfig(List.copyOf(env), workingDir);
  }

  /** Writes the environment and working directory files, when the config has them. */
  void writeTo(RootTree tree) throws IOException {
    if (!env.isEmpty()) {
      write(tree, ENVIRONMENT_FILE, String.join("\n", env) + "\n");
    }
    if (workingDir != null) {
      write(tree, WORKDIR_FILE, workingDir + "\n");
    }
  }

  private static void write(RootTree tree, String file, String content) throws IOException {
    tree.file(
        EntryPath.components(file),
        0644,
        new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)),
        null);
  }

  private static boolean oneLine(String text) {
    return text.indexOf('\n') < 0 && text.indexOf('\0') < 0;
  }
}
