package dev.berth.tools.qsub;

import dev.berth.client.Invocation;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * What qsub and qalter take from where they run: the working directory (relative paths), the host
 * name (output paths, PBS_O_HOST, submit_host), the environment (PBS_O_*, -v, -V) and a clock (-a).
 * Tests pass fixed ones.
 */
record SubmitContext(Path cwd, String host, Map<String, String> env, Clock clock) {

  static SubmitContext of(Invocation inv) {
    return new SubmitContext(
        inv.cwd(), inv.origin().host().get(), inv.env(), Clock.system(inv.zone()));
  }

  /** {@code path} as an absolute path string: relative ones are taken from the cwd, as text. */
  String absolute(String path) {
    if (path.startsWith("/")) {
      return path;
    }
    String dir = cwd.toString();
    return (dir.endsWith("/") ? dir : dir + "/") + path;
  }
}
