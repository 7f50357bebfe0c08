package dev.berth.scheduler;

/**
 * A running-job limit, named by what it counts: all jobs of the server or of a queue, one user's
 * jobs (anywhere, or in one queue), or the subjobs of one array (its %N slot limit).
 */
public record RunLimit(Scope scope, String queue, String user, String array) {
  public enum Scope {
    SERVER,
    QUEUE,
    USER,
    QUEUE_USER,
    ARRAY
  }

  public static RunLimit server() {
    return new RunLimit(Scope.SERVER, "", "", "");
  }

  public static RunLimit queue(String queue) {
    return new RunLimit(Scope.QUEUE, queue, "", "");
  }

  public static RunLimit user(String user) {
    return new RunLimit(Scope.USER, "", user, "");
  }

  public static RunLimit queueUser(String queue, String user) {
    return new RunLimit(Scope.QUEUE_USER, queue, user, "");
  }

  public static RunLimit array(String arrayId) {
    return new RunLimit(Scope.ARRAY, "", "", arrayId);
  }

  /** The limit as an administrator set it, for a job's "Not Running" comment. */
  public String describe() {
    return switch (scope) {
      case SERVER -> "the server's max_running";
      case QUEUE -> "max_running of queue " + queue;
      case USER -> "max_user_run for " + user;
      case QUEUE_USER -> "max_user_run of queue " + queue + " for " + user;
      case ARRAY -> "the slot limit of array " + array;
    };
  }
}
