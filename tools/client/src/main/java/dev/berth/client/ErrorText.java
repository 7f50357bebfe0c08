package dev.berth.client;

import dev.berth.core.ControlCharacters;
import dev.berth.proto.Error;

/**
 * Error lines as Torque's commands print them ({@code prt_job_err}): {@code qdel: Unknown Job Id
 * Error 12.srv}. An unknown job always reads exactly as in Torque 6, since scripts match on it;
 * other errors show the server's message, or Torque's text for the code when the server sent none.
 */
public final class ErrorText {
  private ErrorText() {}

  /**
   * {@code program: <text> <jobId>} for an error about one job, or one reservation ({@code
   * pbs_rdel: Unknown Reservation Id R5.srv}, as OpenPBS's prt_job_err prints it too).
   */
  public static String forJob(String program, Error error, String jobId) {
    String text = text(error);
    if (error.getCode() != Error.Code.UNKNOWN_JOB && text.contains(jobId)) {
      return program + ": " + text;
    }
    return program + ": " + text + " " + jobId;
  }

  /** {@code program: <text>} for an error about no particular job. */
  public static String general(String program, Error error) {
    return program + ": " + text(error);
  }

  /** The message to show for an error, its control characters escaped. */
  public static String text(Error error) {
    if (error.getCode() == Error.Code.UNKNOWN_JOB) {
      return "Unknown Job Id Error";
    }
    return message(error);
  }

  /** The server's message (control characters escaped), else Torque's text for the code. */
  public static String message(Error error) {
    String message = ControlCharacters.escape(error.getMessage().strip());
    return message.isEmpty() ? torqueText(error) : message;
  }

  /** Torque 6's text for a PBSE code (pbs_error_db.h), without its trailing blanks. */
  private static String torqueText(Error error) {
    switch (error.getCode()) {
      case UNKNOWN_JOB:
        return "Unknown Job Id Error";
      case UNKNOWN_ATTRIBUTE:
        return "Undefined attribute";
      case READ_ONLY_ATTRIBUTE:
        return "Cannot set attribute, read only or insufficient permission";
      case INVALID_REQUEST:
        return "Invalid request";
      case UNKNOWN_REQUEST:
        return "Unknown request";
      case PERMISSION:
        return "Unauthorized Request";
      case SYSTEM:
        return "System error occurred";
      case INTERNAL:
        return "PBS server internal error";
      case UNKNOWN_SIGNAL:
        return "Unknown signal name";
      case BAD_VALUE:
        return "Illegal attribute or resource value";
      case BAD_STATE:
        return "Request invalid for state of job";
      case UNKNOWN_QUEUE:
        return "Unknown queue";
      case UNKNOWN_NODE:
        return "Unknown node";
      case BAD_USER:
        return "Bad UID for job execution";
      case MAX_QUEUED:
        return "Maximum number of jobs already in queue";
      case MAX_USER_QUEUED:
        return "Maximum number of jobs already in queue for user";
      case UNKNOWN_RESERVATION:
        return "Unknown Reservation Id"; // OpenPBS's; Torque has no reservations
      case PROTOCOL:
        return "Protocol error";
      case QUEUE_EXISTS:
        return "Queue already exists";
      case QUEUE_BUSY:
        return "Cannot delete busy queue";
      case UNKNOWN_RESOURCE:
        return "Unknown resource type";
      case SERVER_DOWN:
        return "Request not allowed: Server shutting down";
      case NODE_EXISTS:
        return "Node name already exists";
      case NOT_IMPLEMENTED:
        return "This functionality is not yet implemented";
      case INVALID_SYNTAX:
        return "Command syntax invalid";
      default:
        return "Server returned error " + error.getCodeValue();
    }
  }
}
