package dev.berth.mom.nodejob;

import dev.berth.mom.MomActor;
import dev.berth.mom.MomConfig;
import dev.berth.mom.SiteScripts;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The node's health check around one job, mother superior or sister, where the site runs it then
 * (Torque's jobstart and jobend): before the job starts or joins here, an unwell node refuses it,
 * as one that may pass elsewhere, and the mom hears the verdict; after the job has ended here, the
 * mom runs the check again, off the job's actor.
 */
public final class JobHealth {
  private final MomConfig config;
  private final ActorRef<MomActor.Command> mom;

  public JobHealth(MomConfig config, ActorRef<MomActor.Command> mom) {
    this.config = config;
    this.mom = mom;
  }

  /** Why the job cannot start or join here, the verdict told to the mom; empty for a well node. */
  public Optional<String> atStart() {
    SiteScripts site = config.site();
    if (site.healthCheck() == null || !site.healthAtJobStart()) {
      return Optional.empty();
    }
    String error = site.check().run();
    if (error.isEmpty()) {
      return Optional.empty();
    }
    mom.tell(new MomActor.Health(error));
    return Optional.of("the health check of " + config.name() + " failed: " + error);
  }

  /** The job has ended here. */
  public void atEnd() {
    if (config.site().healthAtJobEnd()) {
      mom.tell(MomActor.CheckHealth.NOW);
    }
  }
}
