package dev.berth.tools.hosted;

import dev.berth.client.LocalFiles;
import dev.berth.proto.LocalFile;
import dev.berth.proto.RunCommand;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Files as the client read them, with the caller's own permissions: the server never opens a path a
 * hosted command names. A file the client did not send ends the run with {@link
 * NeedsInput#file(String)}.
 */
final class ClientFiles implements LocalFiles {
  private final Map<Path, LocalFile> files = new HashMap<>();
  private final Map<Path, LocalFile> probes = new HashMap<>();

  ClientFiles(RunCommand command, Path cwd) {
    for (LocalFile file : command.getFilesList()) {
      files.putIfAbsent(cwd.resolve(file.getPath()).normalize(), file);
    }
    for (LocalFile probe : command.getProbesList()) {
      probes.putIfAbsent(Path.of(probe.getPath()).normalize(), probe);
    }
  }

  /** The client's probes of the paths; those it has not sent it is asked for, all at once. */
  @Override
  public Map<Path, Probe> probe(List<Path> paths) {
    List<String> missing =
        paths.stream()
            .filter(p -> !probes.containsKey(p.normalize()))
            .map(Path::toString)
            .distinct()
            .toList();
    if (!missing.isEmpty()) {
      throw NeedsInput.probes(missing);
    }
    Map<Path, Probe> result = new LinkedHashMap<>();
    for (Path path : paths) {
      LocalFile sent = probes.get(path.normalize());
      byte[] head = sent.getContent().isEmpty() ? null : sent.getContent().toByteArray();
      Probe.Kind kind =
          switch (sent.getProblem()) {
            case NONE -> Probe.Kind.FILE;
            case MISSING -> Probe.Kind.MISSING;
            case DENIED -> Probe.Kind.DENIED;
            case DIRECTORY -> Probe.Kind.DIRECTORY;
            case OTHER, UNRECOGNIZED -> Probe.Kind.OTHER;
          };
      result.put(path, new Probe(kind, sent.getSize(), head, sent.getReason(), sent.getWritable()));
    }
    return result;
  }

  @Override
  public byte[] read(Path file) throws IOException {
    LocalFile sent = files.get(file.normalize());
    if (sent == null) {
      throw NeedsInput.file(file.toString()); // absolute: it means there what it means here
    }
    return switch (sent.getProblem()) {
      case NONE -> sent.getContent().toByteArray();
      case MISSING -> throw new NoSuchFileException(file.toString());
      case DENIED -> throw new AccessDeniedException(file.toString());
      case DIRECTORY -> throw new DirectoryException(file);
      case OTHER, UNRECOGNIZED -> throw new IOException(file + ": " + sent.getReason());
    };
  }
}
