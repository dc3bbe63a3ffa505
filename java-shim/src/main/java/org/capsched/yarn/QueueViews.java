package org.capsched.yarn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.impl.pb.QueueInfoPBImpl;
import org.apache.hadoop.yarn.proto.YarnProtos.QueueInfoProto;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.util.Records;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queues as the RM and its clients read them ({@code yarn queue -status},
 * {@code mapred queue -list / -showacls}, the RM's access checks): QueueInfo from the
 * core's queue report, queue ACLs from the core's configuration, and the applications in
 * a queue from the RM's own records. It keeps no state; every answer is built afresh from
 * the queue directory current at the time. An answer that pairs the core's report with the
 * directory is built under the scheduler's read lock, since a refresh swaps the two under
 * its write lock.
 */
final class QueueViews {
  /** Logs under the scheduler's name, where an operator looks. */
  private static final Logger LOG = LoggerFactory.getLogger(RustCapacityScheduler.class);

  private final NativeScheduler core;
  private final Supplier<QueueDirectory> queues;
  private final Lock readLock;

  /**
   * Views over {@code core}, naming queues as the directory {@code queues} gives now;
   * {@code readLock} is the scheduler's.
   */
  QueueViews(NativeScheduler core, Supplier<QueueDirectory> queues, Lock readLock) {
    this.core = core;
    this.queues = queues;
    this.readLock = readLock;
  }

  /** Every queue as the core sees it now, root first, each parent before its children. */
  List<QueueSnapshot> snapshots() {
    readLock.lock();
    try {
      return snapshots(core.queueReport(), queues.get());
    } finally {
      readLock.unlock();
    }
  }

  /** Every queue and every leaf's users, of one moment. */
  QueueView view() {
    readLock.lock();
    try {
      ViewReport report = core.viewReport();
      return new QueueView(snapshots(report.queues, queues.get()), report.users,
          report.partitions);
    } finally {
      readLock.unlock();
    }
  }

  private static List<QueueSnapshot> snapshots(QueueReport report, QueueDirectory dir) {
    List<QueueSnapshot> out = new ArrayList<>(dir.size());
    for (int i = 0; i < dir.size(); i++) {
      out.add(new QueueSnapshot(dir.at(i).getPath(), report, i));
    }
    return out;
  }

  /**
   * How often a lock-free reader reads again while the core's rows and the directory part
   * (a queue created or deleted, the directory being rebuilt under the write lock), before
   * it makes do with what it read, as readers did before queues came and went at run time.
   */
  private static final int REBUILD_WAIT_TRIES = 1000;

  /** The directory and a report of the core's whose rows it names. */
  private static final class Matched {
    final QueueDirectory dir;
    final ViewReport report;

    Matched(QueueDirectory dir, ViewReport report) {
      this.dir = dir;
      this.report = report;
    }
  }

  /**
   * The directory and the core's report, read without the scheduler's lock (readers come
   * under the RM's own locks): read again while their rows part, as they do while a queue
   * created or deleted has its directory rebuilt under the write lock.
   */
  private Matched matched() {
    Matched now = new Matched(queues.get(), core.viewReport());
    for (int tries = 1; now.report.queues.size() != now.dir.size() && tries < REBUILD_WAIT_TRIES;
        tries++) {
      Thread.yield();
      now = new Matched(queues.get(), core.viewReport());
    }
    return now;
  }

  /**
   * The guarantee of the queue at {@code path}, a fraction of the cluster, now (an
   * application's usage report reads it; one queue's figures, without the scheduler's lock).
   *
   * @throws IllegalStateException if the core has no queue at {@code path} (a refresh
   *     removed it since the caller found it)
   */
  double absoluteCapacity(String path) {
    double[] info = core.queueInfo(path);
    if (info == null) {
      throw new IllegalStateException("No queue " + path + " in the scheduler any more");
    }
    return info[Wire.QueueInfoFigures.ABSOLUTE_CAPACITY];
  }

  /** How many of the leaf's users count as active now (none for a parent or unknown queue). */
  int activeUsers(String path) {
    Matched now = matched();
    QueueDirectory dir = now.dir;
    if (dir.byPath(path) == null) {
      return 0;
    }
    int index = dir.indexOf(path);
    UserReport users = now.report.users;
    int active = 0;
    for (int u = 0; u < users.size(); u++) {
      if (users.queueIndex(u) == index && users.isActive(u)) {
        active++;
      }
    }
    return active;
  }

  /**
   * The QueueInfo of the queue a client names by full path or unambiguous short name.
   *
   * @throws IOException if no queue has that name
   */
  QueueInfo find(String name, boolean includeChildQueues, boolean recursive)
      throws IOException {
    RustQueue queue = queues.get().resolve(name);
    if (queue == null) {
      throw new IOException("Unknown queue: " + name);
    }
    return queueInfo(queue, includeChildQueues, recursive);
  }

  /**
   * Builds YARN's QueueInfo for {@code queue} from the core's report: with its children,
   * from one report of every queue, paired with the directory under the scheduler's read
   * lock; without, from the queue's own row, read without that lock when first looked at
   * ({@link OnDemand}: every AM heartbeat asks for its queue's QueueInfo twice and reads
   * only its node labels, which need no crossing).
   */
  QueueInfo queueInfo(RustQueue queue, boolean includeChildQueues, boolean recursive) {
    String path = queue.getPath();
    if (!includeChildQueues) {
      OnDemand info = new OnDemand(core, path);
      describe(info, queue);
      return info;
    }
    QueueDirectory dir;
    List<QueueSnapshot> snapshots;
    readLock.lock();
    try {
      dir = queues.get();
      snapshots = snapshots(core.queueReport(), dir);
    } finally {
      readLock.unlock();
    }
    List<List<Integer>> children = includeChildQueues ? QueueSnapshot.children(snapshots) : null;
    return build(dir, snapshots, children, dir.indexOf(path), includeChildQueues, recursive);
  }

  private static QueueInfo build(QueueDirectory dir, List<QueueSnapshot> snapshots,
      List<List<Integer>> children,
      int index, boolean includeChildQueues, boolean recursive) {
    QueueInfo info = build(dir.at(index), snapshots.get(index).queueInfoFigures());
    List<QueueInfo> childInfos = new ArrayList<>();
    if (includeChildQueues) {
      for (int c : children.get(index)) {
        childInfos.add(build(dir, snapshots, children, c, recursive, recursive));
      }
    }
    info.setChildQueues(childInfos);
    return info;
  }

  /**
   * The QueueInfo of {@code queue} alone (no child queues), from its figures
   * {@code f} ({@link Wire.QueueInfoFigures}).
   */
  private static QueueInfo build(RustQueue queue, double[] f) {
    QueueInfo info = Records.newRecord(QueueInfo.class);
    describe(info, queue);
    figures(info, f);
    return info;
  }

  /** What {@code info} says of {@code queue} from the shim's own records. */
  private static void describe(QueueInfo info, RustQueue queue) {
    String path = queue.getPath();
    info.setQueueName(path.substring(path.lastIndexOf('.') + 1));
    info.setQueuePath(path);
    info.setSchedulerType("RustCapacityScheduler");
    // What the RM's request validation checks asks naming a node label against, and the
    // label it gives a request that names none.
    info.setAccessibleNodeLabels(queue.getAccessibleNodeLabels());
    info.setDefaultNodeLabelExpression(queue.getDefaultNodeLabelExpression());
    info.setApplications(Collections.emptyList());
    info.setChildQueues(new ArrayList<>());
  }

  /** What {@code info} says from the core's QueueInfo figures {@code f} of the queue. */
  private static void figures(QueueInfo info, double[] f) {
    info.setCapacity((float) f[Wire.QueueInfoFigures.CAPACITY]);
    info.setMaximumCapacity((float) f[Wire.QueueInfoFigures.MAXIMUM_CAPACITY]);
    info.setCurrentCapacity((float) f[Wire.QueueInfoFigures.USED_CAPACITY]);
    info.setQueueState(QueueSnapshot.state((long) f[Wire.QueueInfoFigures.STATE]));
    info.setWeight((float) f[Wire.QueueInfoFigures.WEIGHT]);
    long maxParallelApps = (long) f[Wire.QueueInfoFigures.MAX_PARALLEL_APPS];
    info.setMaxParallelApps(maxParallelApps < 0 ? Integer.MAX_VALUE : (int) maxParallelApps);
    info.setPreemptionDisabled(f[Wire.QueueInfoFigures.PREEMPTION_DISABLED] != 0);
    info.setIntraQueuePreemptionDisabled(
        f[Wire.QueueInfoFigures.INTRA_QUEUE_PREEMPTION_DISABLED] != 0);
  }

  /**
   * One queue's QueueInfo whose figures from the core (capacities, usage, state, limits,
   * preemption switches) are read when first looked at, by a getter or as the record is
   * turned into its protocol form for a client, and kept from then on; its name, path and
   * node labels are the shim's and set at once. The RM asks for an application's queue's
   * QueueInfo twice in every AM heartbeat and reads only its node labels: those calls
   * no longer cross into the core or wait for its lock behind node heartbeats. A client
   * sees the figures of the moment its answer is written, as from Apache's scheduler. A
   * queue a refresh removed before its figures were read reads as a stopped queue that
   * holds nothing.
   */
  private static final class OnDemand extends QueueInfoPBImpl {
    /** The core to read the figures from; null once they are read. */
    private NativeScheduler core;
    private final String path;

    OnDemand(NativeScheduler core, String path) {
      this.core = core;
      this.path = path;
    }

    private synchronized void read() {
      NativeScheduler from = core;
      if (from == null) {
        return;
      }
      // A failed read leaves the record as it was, to be read at the next look.
      double[] f = from.queueInfo(path);
      core = null;
      if (f == null) {
        f = new double[Wire.QueueInfoFigures.STRIDE];
        f[Wire.QueueInfoFigures.STATE] = Wire.QueueStateCode.STOPPED;
        f[Wire.QueueInfoFigures.MAX_PARALLEL_APPS] = -1;
      }
      figures(this, f);
    }

    @Override
    public QueueInfoProto getProto() {
      read();
      return super.getProto();
    }

    @Override
    public float getCapacity() {
      read();
      return super.getCapacity();
    }

    @Override
    public void setCapacity(float capacity) {
      read();
      super.setCapacity(capacity);
    }

    @Override
    public float getMaximumCapacity() {
      read();
      return super.getMaximumCapacity();
    }

    @Override
    public void setMaximumCapacity(float maximumCapacity) {
      read();
      super.setMaximumCapacity(maximumCapacity);
    }

    @Override
    public float getCurrentCapacity() {
      read();
      return super.getCurrentCapacity();
    }

    @Override
    public void setCurrentCapacity(float currentCapacity) {
      read();
      super.setCurrentCapacity(currentCapacity);
    }

    @Override
    public QueueState getQueueState() {
      read();
      return super.getQueueState();
    }

    @Override
    public void setQueueState(QueueState queueState) {
      read();
      super.setQueueState(queueState);
    }

    @Override
    public float getWeight() {
      read();
      return super.getWeight();
    }

    @Override
    public void setWeight(float weight) {
      read();
      super.setWeight(weight);
    }

    @Override
    public int getMaxParallelApps() {
      read();
      return super.getMaxParallelApps();
    }

    @Override
    public void setMaxParallelApps(int maxParallelApps) {
      read();
      super.setMaxParallelApps(maxParallelApps);
    }

    @Override
    public Boolean getPreemptionDisabled() {
      read();
      return super.getPreemptionDisabled();
    }

    @Override
    public void setPreemptionDisabled(boolean disabled) {
      read();
      super.setPreemptionDisabled(disabled);
    }

    @Override
    public Boolean getIntraQueuePreemptionDisabled() {
      read();
      return super.getIntraQueuePreemptionDisabled();
    }

    @Override
    public void setIntraQueuePreemptionDisabled(boolean disabled) {
      read();
      super.setIntraQueuePreemptionDisabled(disabled);
    }
  }

  /**
   * The ACLs the calling user holds on every queue, one entry per queue in tree order; none
   * if the user cannot be told.
   */
  List<QueueUserACLInfo> userAclInfo() {
    UserGroupInformation user;
    try {
      user = UserGroupInformation.getCurrentUser();
    } catch (IOException e) {
      LOG.warn("Cannot determine the current user for queue ACLs", e);
      return Collections.emptyList();
    }
    List<QueueUserACLInfo> out = new ArrayList<>();
    for (RustQueue q : queues.get().all()) {
      out.addAll(userAclInfo(q.getPath(), user));
    }
    return out;
  }

  /** The ACLs {@code user} holds on the queue at {@code path}, as configured. */
  List<QueueUserACLInfo> userAclInfo(String path, UserGroupInformation user) {
    List<QueueACL> granted = new ArrayList<>();
    for (QueueACL acl : QueueACL.values()) {
      if (hasAccess(user, acl, path, false)) {
        granted.add(acl);
      }
    }
    QueueUserACLInfo info = Records.newRecord(QueueUserACLInfo.class);
    info.setQueueName(path);
    info.setUserAcls(granted);
    return Collections.singletonList(info);
  }

  /**
   * Whether {@code user} holds {@code acl} on the queue at {@code path}. With
   * {@code enforcedOnly}, everyone holds every ACL while yarn.acl.enable is false (what the
   * RM's access checks expect); without, the ACLs are read as configured. An unknown queue
   * grants nothing.
   */
  boolean hasAccess(UserGroupInformation user, QueueACL acl, String path,
      boolean enforcedOnly) {
    return core.checkAccess(path, Wire.aclCode(acl), user.getShortUserName(), user.getGroupNames(),
        enforcedOnly);
  }

  /**
   * The current attempts of the applications in the queue a client names and its
   * descendants; null if no queue has that name.
   */
  List<ApplicationAttemptId> appsInQueue(String name,
      Collection<SchedulerApplication<RustAppAttempt>> applications) {
    RustQueue queue = queues.get().resolve(name);
    if (queue == null) {
      return null;
    }
    String prefix = queue.getPath() + ".";
    List<ApplicationAttemptId> out = new ArrayList<>();
    for (SchedulerApplication<RustAppAttempt> app : applications) {
      String path = ((RustQueue) app.getQueue()).getPath();
      RustAppAttempt attempt = app.getCurrentAppAttempt();
      if (attempt != null && (path.equals(queue.getPath()) || path.startsWith(prefix))) {
        out.add(attempt.getApplicationAttemptId());
      }
    }
    return out;
  }
}
