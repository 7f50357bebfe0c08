package dev.berth.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The daemons as the packaged systemd units start them (ops/dist/systemd): the tests take each
 * unit's ExecStart line as it is, with the checkout's ops/bin in place of the installed bin and a
 * configuration file of the test's in place of /etc/berth's, so what the tests run is what a site
 * runs.
 */
final class Units {
  private Units() {}

  /**
   * The command line of {@code unit}'s ExecStart (berth-server, berth-mom, berth-relay), reading
   * its options from {@code conf}, which is written here with {@code options}, one per line.
   */
  static List<String> command(String unit, Path conf, List<String> options) throws IOException {
    Path file = TestCluster.ROOT.resolve("ops/dist/systemd").resolve(unit + ".service");
    String exec =
        Files.readAllLines(file).stream()
            .filter(l -> l.startsWith("ExecStart="))
            .findFirst()
            .orElseGet(() -> fail(file + " has no ExecStart"))
            .substring("ExecStart=".length());
    StringBuilder lines = new StringBuilder("# " + unit + ", written by the test\n");
    for (String option : options) {
      lines.append(option.matches("[^\\s\"'#]+") ? option : quote(option)).append('\n');
    }
    Files.writeString(conf, lines);
    List<String> argv = new ArrayList<>();
    for (String word : exec.split(" ")) {
      if (word.startsWith("@BIN@/")) {
        argv.add(TestCluster.ROOT.resolve("ops/bin").resolve(word.substring(6)).toString());
      } else if (word.startsWith("@/etc/berth/")) {
        argv.add("@" + conf);
      } else {
        argv.add(word);
      }
    }
    return argv;
  }

  private static String quote(String option) {
    if (option.contains("\"")) {
      fail("an option the test cannot quote for an argument file: " + option);
    }
    return "\"" + option + "\"";
  }
}
