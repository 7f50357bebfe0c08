package dev.berth.server.accounting;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reading accounting files, the server's or Torque's. */
public final class AccountingFiles {
  private AccountingFiles() {}

  /**
   * The lines of {@code file} as UTF-8; Torque writes names byte for byte, so what is not UTF-8 is
   * read as U+FFFD, not refused.
   */
  public static BufferedReader lines(Path file) throws IOException {
    return new BufferedReader(
        new InputStreamReader(
            Files.newInputStream(file),
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE)));
  }
}
