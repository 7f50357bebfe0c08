package dev.berth.server.query;

import com.google.protobuf.ByteString;
import dev.berth.core.BadValueException;
import dev.berth.core.JobIds;
import dev.berth.proto.AttachJob;
import dev.berth.proto.AttachReply;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.Letter;
import dev.berth.proto.Node;
import dev.berth.proto.Response;
import dev.berth.proto.TerminalPermit;
import dev.berth.security.pki.PemFiles;
import dev.berth.security.seal.Seal;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Permissions;
import dev.berth.server.state.ClusterState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * qsub -I's way to its job's terminal. While the job waits, where it is; once its mother superior
 * has started it, that mom's terminal port, a permit sealed by the server for that mom, and the
 * cluster's CA, against which the client checks the mom's certificate. Only the job's owner gets a
 * permit: whoever holds the session acts as the owner, which not even a manager may.
 */
public final class TerminalPermits {
  private final Seal seal;
  private final String serverName;
  private final ByteString anchors;

  public TerminalPermits(Seal seal, String serverName) {
    this.seal = seal;
    this.serverName = serverName;
    try {
      this.anchors =
          seal.anchors().isEmpty()
              ? ByteString.EMPTY
              : ByteString.copyFrom(PemFiles.text(seal.anchors()), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the cluster's CA certificates as PEM", e);
    }
  }

  public Response.Builder answer(ClusterState s, Caller caller, AttachJob request) {
    try {
      return Response.newBuilder().setAttach(attach(s, caller, request.getJobId()));
    } catch (CommandException e) {
      return Response.newBuilder().setError(e.toError());
    }
  }

  private AttachReply attach(ClusterState s, Caller caller, String text) {
    Job job = owned(s, caller, text);
    if (!job.hasInteractive()) {
      throw new CommandException(
          Error.Code.BAD_STATE, "job " + job.getId() + " is not an interactive job (qsub -I)");
    }
    if (anchors.isEmpty()) {
      throw new CommandException(
          Error.Code.SYSTEM,
          "this cluster runs without credentials (--insecure), and interactive jobs need them:"
              + " qsub checks the mom's certificate, the mom the server's seal");
    }
    AttachReply.Builder reply = AttachReply.newBuilder().setState(Queries.letter(job.getState()));
    switch (job.getState()) {
      case EXITING, COMPLETED ->
          throw new CommandException(
              Error.Code.BAD_STATE,
              "job "
                  + job.getId()
                  + " ended before its session began"
                  + (job.getComment().isEmpty() ? "" : ": " + job.getComment()));
      case RUNNING -> {
        // Dispatched is not enough: the mother superior takes a session once it reports the start.
        if (job.getStartTime() == 0 || job.getExecNodesCount() == 0) {
          return reply.build();
        }
      }
      default -> {
        return reply.build();
      }
    }
    String node = job.getExecNodes(0).getNode();
    String address = s.node(node).map(Node::getTerminalAddress).orElse("");
    if (address.isEmpty()) {
      throw new CommandException(
          Error.Code.SYSTEM,
          "node "
              + node
              + " runs job "
              + job.getId()
              + " but its mom takes no interactive sessions (it has no terminal port)");
    }
    TerminalPermit permit =
        TerminalPermit.newBuilder().setJobId(job.getId()).setUser(job.getEuser()).build();
    return reply
        .setNode(node)
        .setAddress(address)
        .setPermit(seal.seal(Letter.newBuilder().setTo(node).setTerminalPermit(permit)))
        .setCaCertificates(anchors)
        .build();
  }

  /** The caller's own job; another's, if the caller may see it, is refused as not theirs. */
  private Job owned(ClusterState s, Caller caller, String text) {
    String id;
    try {
      id = JobIds.canonical(text, serverName);
    } catch (BadValueException e) {
      throw new CommandException(Error.Code.UNKNOWN_JOB, e.getMessage());
    }
    Job job = s.job(id).filter(j -> Permissions.maySee(s, caller, j)).orElse(null);
    if (job == null) {
      throw new CommandException(Error.Code.UNKNOWN_JOB, "Unknown Job Id " + id);
    }
    if (!job.getEuser().equals(caller.user())) {
      throw new CommandException(
          Error.Code.PERMISSION,
          "job " + id + " belongs to " + job.getEuser() + ": only its owner may attach to it");
    }
    return job;
  }
}
