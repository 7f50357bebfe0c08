package dev.berth.tools.qsub;

import dev.berth.client.Getopt;
import dev.berth.proto.Attribute;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A fixed place to submit from: cwd, host, environment and clock never come from the machine. */
final class SubmitPlace {
  static final String HOST = "login1.example.org";
  static final Path CWD = Path.of("/home/alice/work");

  /** 2024-03-15 10:00:00 in Europe/Zurich (09:00 UTC). */
  static final Clock CLOCK =
      Clock.fixed(Instant.parse("2024-03-15T09:00:00Z"), ZoneId.of("Europe/Zurich"));

  static final Map<String, String> ENV =
      Map.of(
          "HOME", "/home/alice",
          "LANG", "en_US.UTF-8",
          "LOGNAME", "alice",
          "PATH", "/usr/bin:/bin",
          "MAIL", "/var/mail/alice",
          "SHELL", "/bin/bash",
          "FOO", "bar",
          "LIST", "a,b");

  static final SubmitContext CTX = new SubmitContext(CWD, HOST, ENV, CLOCK);

  private SubmitPlace() {}

  static JobOptions options(String... args) throws Exception {
    JobOptions options = new JobOptions(CTX);
    for (Getopt.Option o : Getopt.parse(QsubFlags.QSUB, List.of(args)).options()) {
      options.apply(o);
    }
    return options;
  }

  /** Plain attributes as name to value; resources as {@code Resource_List.name}. */
  static Map<String, String> byName(List<Attribute> attributes) {
    Map<String, String> map = new LinkedHashMap<>();
    for (Attribute a : attributes) {
      if (!a.getName().equals("Variable_List")) {
        String key = a.getResource().isEmpty() ? a.getName() : a.getName() + "." + a.getResource();
        map.put(key, a.getValue());
      }
    }
    return map;
  }

  static List<String> variables(List<Attribute> attributes) {
    return attributes.stream()
        .filter(a -> a.getName().equals("Variable_List"))
        .map(Attribute::getValue)
        .toList();
  }
}
