package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A tiny C program that allocates and touches N MB, one MB at a time, compiled with gcc. */
final class Hog {
  private static final String SOURCE =
      """
      #include <stdio.h>
      #include <stdlib.h>
      #include <string.h>
      int main(int argc, char **argv) {
        long mb = argc > 1 ? atol(argv[1]) : 0;
        volatile char sum = 0;
        for (long i = 0; i < mb; i++) {
          char *p = malloc(1 << 20);
          if (!p) return 2;
          memset(p, (int) i + 1, 1 << 20);
          sum += p[i % (1 << 20)];
        }
        printf("touched %ld MB\\n", mb);
        return 0;
      }
      """;

  private Hog() {}

  static Path compile(Path dir) throws IOException, InterruptedException {
    Path c = Files.writeString(dir.resolve("hog.c"), SOURCE);
    Path bin = dir.resolve("hog");
    Process gcc =
        new ProcessBuilder("gcc", "-O0", "-o", bin.toString(), c.toString()).inheritIO().start();
    assertEquals(0, gcc.waitFor(), "gcc failed");
    return bin;
  }
}
