package org.capsched.yarn;

import java.util.List;
import java.util.Map;

import org.apache.hadoop.thirdparty.com.google.common.util.concurrent.SettableFuture;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.records.ApplicationStateData;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueInvalidException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the RM's objects say what the core decided about an application: admitted to a
 * queue or rejected, given an attempt, removed, moved to another leaf, or given a new
 * priority. That means the scheduler's application records, the queue metrics and users
 * managers, the RM's state store, and the events that move the RM's application and attempt
 * state machines on.
 *
 * <p>Callers hold the scheduler's write lock. It logs under the scheduler's name, where an
 * operator looks for what happened to an application.
 */
final class ApplicationApplier {
  private static final Logger LOG = LoggerFactory.getLogger(RustCapacityScheduler.class);

  private final RMContext rmContext;
  private final NativeScheduler core;
  private final Map<ApplicationId, SchedulerApplication<RustAppAttempt>> applications;
  private final Map<Integer, RustApplication> appsByKey;

  /**
   * An applier that keeps {@code applications} (the scheduler's own records, by id) and
   * {@code appsByKey} (the same, by the core's key) and tells {@code rmContext}'s dispatcher;
   * attempts take container numbers the RM needs from {@code core}.
   */
  ApplicationApplier(RMContext rmContext, NativeScheduler core,
      Map<ApplicationId, SchedulerApplication<RustAppAttempt>> applications,
      Map<Integer, RustApplication> appsByKey) {
    this.rmContext = rmContext;
    this.core = core;
    this.applications = applications;
    this.appsByKey = appsByKey;
  }

  /**
   * Tells each application waiting for its AM container what the core told it about its
   * activation ({@link Wire.AmDiagnosis} records), with the details of {@code view}.
   */
  void diagnoseAms(long[] records, QueueView view) {
    for (int i = 0; i < records.length; i += Wire.AmDiagnosis.STRIDE) {
      RustApplication app = appsByKey.get((int) records[i + Wire.AmDiagnosis.APP]);
      RustAppAttempt attempt = app == null ? null : app.getCurrentAppAttempt();
      if (attempt != null) {
        attempt.diagnoseAm((int) records[i + Wire.AmDiagnosis.CODE], view);
      }
    }
  }

  /** The core refused the application: the RM fails it with {@code reason}. */
  void rejected(ApplicationId id, String reason) {
    LOG.info("Rejected {}: {}", id, reason);
    rmContext.getDispatcher().getEventHandler()
        .handle(new RMAppEvent(id, RMAppEventType.APP_REJECTED, reason));
  }

  /**
   * The core refused an application the RM is recovering: its queue is gone
   * ({@code queueExists} false; {@code placed}: a placement rule chose a queue that could
   * not be created), or is no longer a leaf, since the RM last ran. As with
   * Apache's scheduler the RM kills the application and says why, or, with
   * {@code failFast} ({@code yarn.scheduler.capacity.application.fail-fast}), refuses to
   * start.
   */
  void refusedOnRecovery(ApplicationId id, String queue, boolean queueExists, boolean placed,
      boolean failFast) {
    if (placed && !queueExists) {
      // A placement rule sent it to a queue to be created, and it could not be.
      if (failFast) {
        throw new QueueInvalidException(
            "Queue named " + queue + " could not be auto-created during application recovery.");
      }
      String reason = "Application killed on recovery as it was submitted to queue " + queue
          + " which did not exist and could not be auto-created";
      LOG.warn("{}: {}", id, reason);
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppEvent(id, RMAppEventType.KILL, reason));
      return;
    }
    if (failFast) {
      throw new QueueInvalidException(queueExists
          ? "Queue named " + queue + " is no longer a leaf queue during application recovery."
              + " Changing a leaf queue to a parent queue during recovery is not presently"
              + " supported by the capacity scheduler. Please restart with leaf queues before"
              + " shutdown/restart continuing as leaf queues."
          : "Queue named " + queue + " missing during application recovery. Queue removal"
              + " during recovery is not presently supported by the capacity scheduler,"
              + " please restart with all queues configured which were present before"
              + " shutdown/restart.");
    }
    String reason = "Application killed on recovery as it was submitted to queue " + queue
        + (queueExists ? " which is no longer a leaf queue after restart."
            : " which no longer exists after restart.");
    LOG.warn("{}: {}", id, reason);
    rmContext.getDispatcher().getEventHandler()
        .handle(new RMAppEvent(id, RMAppEventType.KILL, reason));
  }

  /** The core admitted the submission to {@code queue} under {@code key}. */
  void admitted(Submission sub, int key, RustQueue queue) {
    RustApplication app =
        new RustApplication(sub.id, key, queue, sub.user, sub.priority, sub.unmanagedAM);
    applications.put(sub.id, app);
    appsByKey.put(key, app);
    queue.getMetrics().submitApp(sub.user, sub.unmanagedAM);
    RMApp rmApp = rmContext.getRMApps().get(sub.id);
    if (rmApp != null && !queue.getPath().equals(rmApp.getQueue())) {
      // A queue the submission created: the RM could not find its path when it recorded
      // the application (Apache's RM records the placed parent and leaf).
      rmApp.setQueue(queue.getPath());
    }
    LOG.info("Accepted application {} from user {} in queue {}", sub.id, sub.user,
        queue.getPath());
    if (!sub.recovering) {
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppEvent(sub.id, RMAppEventType.APP_ACCEPTED));
    }
  }

  /**
   * The RM's object for a new attempt of {@code app}, made its current one (taking over the
   * previous attempt's containers if {@code transferState}); before the core hears of it.
   */
  void newAttempt(RustApplication app, ApplicationAttemptId attemptId, boolean transferState,
      boolean recovering) {
    RustAppAttempt attempt = new RustAppAttempt(attemptId, app.getUser(),
        (RustQueue) app.getQueue(), rmContext, app.getPriority(), recovering,
        () -> core.takeContainerNumber(app.key()), asks -> restoreAsks(app, asks));
    if (transferState) {
      attempt.transferStateFromPreviousAttempt(app.getCurrentAppAttempt());
    }
    app.setCurrentAppAttempt(attempt);
  }

  /** Asks the RM gave back to {@code app}'s attempt reach the core as if its AM sent them. */
  private void restoreAsks(RustApplication app, List<ResourceRequest> asks) {
    Asks encoded = Asks.encode(asks);
    core.allocate(app.key(), new long[0], encoded.ints, encoded.longs, encoded.names,
        encoded.labels, new String[0], new String[0], false);
  }

  /** The core has the new attempt: it counts in the metrics, and the RM may launch it. */
  void attemptAdded(RustApplication app, ApplicationAttemptId attemptId, boolean recovering) {
    ((RustQueue) app.getQueue()).getMetrics().submitAppAttempt(app.getUser(),
        app.isUnmanagedAM());
    if (!recovering) {
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppAttemptEvent(attemptId, RMAppAttemptEventType.ATTEMPT_ADDED));
    }
  }

  /**
   * The RM is done with the application: its records go, ahead of the core's. Returns the
   * application, or null if it was unknown.
   */
  RustApplication removed(ApplicationId id, RMAppState finalState) {
    RustApplication app = (RustApplication) applications.remove(id);
    if (app == null) {
      LOG.warn("Unknown application {} removed", id);
      return null;
    }
    appsByKey.remove(app.key());
    app.stop(finalState);
    return app;
  }

  /**
   * The core moved the application to {@code dest}: the RM's attempt moves its metrics,
   * pending asks and users-manager entry the way it does for Apache's scheduler.
   */
  void moved(RustApplication app, RustQueue dest) {
    if (dest == app.getQueue()) {
      return;
    }
    RustQueue source = (RustQueue) app.getQueue();
    RustAppAttempt attempt = app.getCurrentAppAttempt();
    if (attempt != null) {
      attempt.move(dest);
    } else {
      source.getMetrics().moveAppFrom(null, app.isUnmanagedAM());
      dest.getMetrics().moveAppTo(null, app.isUnmanagedAM());
    }
    app.setQueue(dest);
    LOG.info("Moved application {} from {} to {}", app.getApplicationId(), source.getPath(),
        dest.getPath());
  }

  /**
   * Saves the application's new priority in the RM's state store, as Apache does before
   * the RM reports success; {@code future} completes when it is stored.
   */
  void savePriority(RMApp rmApp, Priority priority, SettableFuture<Object> future) {
    rmApp.getApplicationSubmissionContext().setPriority(priority);
    ApplicationStateData state = ApplicationStateData.newInstance(rmApp.getSubmitTime(),
        rmApp.getStartTime(), rmApp.getApplicationSubmissionContext(), rmApp.getUser(),
        rmApp.getRealUser(), rmApp.getCallerContext());
    state.setApplicationTimeouts(rmApp.getApplicationTimeouts());
    state.setLaunchTime(rmApp.getLaunchTime());
    rmContext.getStateStore().updateApplicationStateSynchronously(state, false, future);
  }

  /** The core runs the application at {@code priority} now. */
  void reprioritised(RustApplication app, Priority priority) {
    app.setPriority(priority);
    LOG.info("Application {} now runs at priority {}", app.getApplicationId(),
        priority.getPriority());
  }
}
