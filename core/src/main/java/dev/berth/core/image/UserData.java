package dev.berth.core.image;

import java.nio.file.Path;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Where a user's images ({@code images/NAME.sqsh}) and named containers ({@code containers/NAME})
 * live: {@code $BERTH_DATA_PATH}, else {@code $XDG_DATA_HOME/berth}, else {@code
 * ~/.local/share/berth}; a relative value counts as unset (as the XDG spec has it). berth image
 * keeps them there, and a node finds them there from the job's environment.
 */
public final class UserData {
  /** What may name an image or a container, there and in a job's attributes. */
  public static final String NAME_RULE = "letters, digits and . _ + - (not first), at most 128";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+-]{0,127}");

  private UserData() {}

  /** Whether {@code name} may name an image or container ({@link #NAME_RULE}). */
  public static boolean isName(String name) {
    return NAME.matcher(name).matches();
  }

  /** The data directory, from the user's environment ({@code env}: a name to its value or null). */
  public static Path directory(Function<String, String> env, String home) {
    String berth = env.apply("BERTH_DATA_PATH");
    if (berth != null && berth.startsWith("/")) {
      return Path.of(berth);
    }
    String xdg = env.apply("XDG_DATA_HOME");
    if (xdg != null && xdg.startsWith("/")) {
      return Path.of(xdg, "berth");
    }
    return Path.of(home, ".local", "share", "berth");
  }
}
