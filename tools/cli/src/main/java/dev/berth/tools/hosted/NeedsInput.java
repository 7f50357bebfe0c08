package dev.berth.tools.hosted;

import dev.berth.proto.CommandNeeds;

/**
 * A hosted command reached for something its client did not send (its script, standard input, an
 * environment variable) or that only a process on the client's terminal can do. Thrown from the
 * read itself, before the command has sent the server anything but queries; the client sends the
 * request again with what is named here.
 */
final class NeedsInput extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient CommandNeeds needs;

  NeedsInput(CommandNeeds needs) {
    super("the command needs " + needs, null, false, false);
    this.needs = needs;
  }

  static NeedsInput stdin() {
    return new NeedsInput(CommandNeeds.newBuilder().setStdin(true).build());
  }

  static NeedsInput environment() {
    return new NeedsInput(CommandNeeds.newBuilder().setEnvironment(true).build());
  }

  static NeedsInput interaction() {
    return new NeedsInput(CommandNeeds.newBuilder().setInteraction(true).build());
  }

  static NeedsInput file(String path) {
    return new NeedsInput(CommandNeeds.newBuilder().addFiles(path).build());
  }

  static NeedsInput probes(java.util.List<String> paths) {
    return new NeedsInput(CommandNeeds.newBuilder().addAllProbes(paths).build());
  }

  CommandNeeds needs() {
    return needs;
  }
}
