package org.capsched.yarn;

/**
 * The Rust scheduler core behind one opaque handle. Every method is one JNI crossing; record
 * layouts and codes are in {@link Wire}, the natives in {@code rust-core/src/jni/}. A refusal
 * the user should see comes back as a typed exception ({@link ApplicationRejectedException},
 * {@link NoSuchLeafQueueException}).
 *
 * <p>Thread safety: the native side serialises calls with its own lock. Every call holds
 * {@link #lifecycle}'s read lock while it crosses, and {@link #close()} frees the handle
 * exactly once under the write lock: a call from any thread (an AM's allocate, a metrics
 * or web read) that races the RM stopping either completes first or throws
 * IllegalStateException, never reaches a freed core.
 */
final class NativeScheduler implements AutoCloseable {
  static {
    NativeLoader.load();
  }

  /** Written only under the write lock, read under the read lock. */
  private long handle;
  /** Keeps the handle alive while a call crosses (see above). */
  private final java.util.concurrent.locks.ReentrantReadWriteLock lifecycle =
      new java.util.concurrent.locks.ReentrantReadWriteLock();

  /**
   * Loads the configuration and creates the core.
   *
   * @param clusterSettings minimum memory, minimum vcores, maximum memory, maximum vcores,
   *     ACLs enabled (1) or not (0), ApplicationMasters allowed on lent non-exclusive nodes (1)
   *     or not (0)
   * @param baseProperties capacity keys the file overrides (name/value pairs)
   * @param overlayProperties capacity keys that override the file (name/value pairs)
   * @throws SchedulerConfigurationException if the configuration is invalid
   */
  NativeScheduler(byte[] xml, String source, long[] clusterSettings, long epoch,
      String[] baseProperties, String[] overlayProperties, String[] systemProperties) {
    this.handle = create(xml, source, clusterSettings, epoch, baseProperties, overlayProperties,
        systemProperties);
    // The core now logs through NativeLog; keep it told of the loggers' levels.
    NativeLog.watchLevels();
  }

  /** The open handle, with the read lock held until {@link #exit()}. */
  private long enter() {
    lifecycle.readLock().lock();
    if (handle == 0) {
      lifecycle.readLock().unlock();
      throw new IllegalStateException("the native scheduler has been closed");
    }
    return handle;
  }

  private void exit() {
    lifecycle.readLock().unlock();
  }

  @Override
  public void close() {
    lifecycle.writeLock().lock();
    try {
      long h = handle;
      handle = 0;
      if (h != 0) {
        destroy(h);
      }
    } finally {
      lifecycle.writeLock().unlock();
    }
  }

  /** {@code call} on the open handle, which stays open until it returns. */
  private <T> T whileOpen(java.util.function.LongFunction<T> call) {
    long h = enter();
    try {
      return call.apply(h);
    } finally {
      exit();
    }
  }

  /** {@code call} on the open handle, which stays open until it returns. */
  private void runWhileOpen(java.util.function.LongConsumer call) {
    long h = enter();
    try {
      call.accept(h);
    } finally {
      exit();
    }
  }

  /**
   * A refresh's first half, which needs no lock: reads and validates the new configuration
   * completely. Nothing changes until {@link PreparedRefresh#commit()}.
   *
   * @throws SchedulerConfigurationException with every problem; the configuration in force
   *     stays (loaded again, as Apache's scheduler does when a new one fails)
   */
  PreparedRefresh prepareRefresh(byte[] xml, String source, String[] baseProperties,
      String[] overlayProperties, String[] systemProperties) {
    return whileOpen(h -> new PreparedRefresh(prepareRefresh(h, xml, source, baseProperties,
        overlayProperties, systemProperties)));
  }

  /**
   * A validated configuration held by the core until it is committed, then what the commit
   * replaced; closing frees whichever it holds (exactly once; a commit after closing is
   * refused).
   */
  final class PreparedRefresh implements AutoCloseable {
    private long pointer;

    private PreparedRefresh(long pointer) {
      this.pointer = pointer;
    }

    /**
     * The refresh's second half, for the caller to run under its own lock: checks the
     * configuration against the live state and swaps it in; returns its warnings. What the
     * swap replaced is freed by {@link #close}, which the caller runs after its lock: with
     * a thousand queues that takes most of a millisecond.
     *
     * @throws SchedulerConfigurationException if the live state refuses it; nothing changes
     */
    synchronized String[] commit() {
      // No lambda here: a call site's first run links it, and this one first runs at the
      // first refresh, under the caller's lock (linking took a millisecond there).
      long p = pointer;
      long h = enter();
      try {
        return commitRefresh(h, p);
      } finally {
        exit();
      }
    }

    @Override
    public void close() {
      long p = take();
      if (p != 0) {
        discardRefresh(p);
      }
    }

    private synchronized long take() {
      long p = pointer;
      pointer = 0;
      return p;
    }
  }

  /**
   * A node joined, with {@code label} ("" for none; the label joins the cluster's, {@code
   * exclusive} or not, if the core has not heard of it): the core's key for it.
   */
  int addNode(String nodeId, String host, String rack, long memory, long vcores, String label,
      boolean exclusive) {
    return whileOpen(h -> addNode(h, nodeId, host, rack, memory, vcores, label, exclusive));
  }

  /**
   * The cluster's node labels are {@code labels} (each exclusive when its {@code exclusive}
   * flag is not 0), and node {@code nodes[i]} now has label {@code nodeLabels[i]} ("" for
   * none); capacities and limits are worked out again.
   */
  void relabelNodes(String[] labels, int[] exclusive, int[] nodes, String[] nodeLabels) {
    runWhileOpen(h -> relabelNodes(h, labels, exclusive, nodes, nodeLabels));
  }

  long[] removeNode(int node) {
    return whileOpen(h -> removeNode(h, node));
  }

  void updateNodeResource(int node, long memory, long vcores) {
    runWhileOpen(h -> updateNodeResource(h, node, memory, vcores));
  }

  /**
   * Capacities, limits passed down, activations and headroom worked out again, as Apache's
   * {@code updateClusterResource}.
   */
  void updateClusterResource() {
    runWhileOpen(NativeScheduler::updateClusterResource);
  }

  long[] nodeUpdate(int node, long[] finished) {
    return whileOpen(h -> nodeUpdate(h, node, finished));
  }

  void release(long[] containers) {
    runWhileOpen(h -> release(h, containers));
  }

  /**
   * Admits an application; returns its key. A missing queue that its parent may create
   * ({@code auto-queue-creation-v2}) is created first; {@code placed} says a placement rule
   * chose the queue, so a queue that cannot be created refuses it with the reason;
   * {@code amLabel} is the partition the AM's request names ({@code ""}: the default one).
   *
   * @throws ApplicationRejectedException with the reason the user sees
   */
  int submit(long clusterTimestamp, int id, String queue, String user, String[] groups,
      long priority, boolean recovering, boolean placed, long amMemory, long amVcores,
      String amLabel) throws ApplicationRejectedException {
    long h = enter();
    try {
      return submit(h, clusterTimestamp, id, queue, user, groups, priority, recovering,
          placed, amMemory, amVcores, amLabel);
    } finally {
      exit();
    }
  }

  /** The full path of the leaf queue an application runs in. */
  String applicationQueue(int app) {
    return whileOpen(h -> applicationQueue(h, app));
  }

  /** Whether an application is activated (past its leaf's AM and application limits). */
  boolean applicationActive(int app) {
    return whileOpen(h -> applicationActive(h, app));
  }

  /**
   * A new attempt; with {@code transferState} ({@code keep-containers}) it takes over its
   * predecessor's containers and AM blacklist. Its container numbers start above
   * {@code epoch << 40} (the RM's epoch now).
   */
  void addAttempt(int app, int attemptId, boolean transferState, long epoch) {
    runWhileOpen(h -> addAttempt(h, app, attemptId, transferState, epoch));
  }

  void removeAttempt(int app) {
    runWhileOpen(h -> removeAttempt(h, app));
  }

  long[] removeApp(int app) {
    return whileOpen(h -> removeApp(h, app));
  }

  /**
   * One round of the preemption policy at {@code now} (ms, the policy's clock), under the
   * settings of the configuration in force: the containers to mark, kill or unreserve
   * ({@link Wire.PreemptionAction} records).
   */
  long[] preemptionRound(long now) {
    return whileOpen(h -> preemptionRound(h, now));
  }

  /**
   * The preemption policy's kill wait for a container is over (MARK_CONTAINER_FOR_KILLABLE):
   * true if the RM is to kill it now; false if lazy preemption only marked it killable, to
   * be killed when its room is needed.
   */
  boolean containerKillable(int app, int attempt, long number) {
    return whileOpen(h -> containerKillable(h, app, attempt, number));
  }

  /**
   * The killable containers the core killed outside a heartbeat since the last call (a
   * parent a move pushed over its maximum), as {@link Wire.ContainerRef} records: the RM
   * ends each as PREEMPTED.
   */
  long[] takeKilled() {
    return whileOpen(NativeScheduler::takeKilled);
  }

  /**
   * Moves reservation {@code number} of attempt {@code attempt} of application {@code app}
   * from node {@code from} to node {@code to}, as a preemption round decided; false if it
   * could not be (the node no longer holds it, or the target is gone or reserved).
   */
  boolean moveReservation(int app, int attempt, long number, int from, int to) {
    return whileOpen(h -> moveReservation(h, app, attempt, number, from, to));
  }

  /** The next container number of the application's current attempt; -1 if it has none. */
  long takeContainerNumber(int app) {
    return whileOpen(h -> takeContainerNumber(h, app));
  }

  /**
   * One AM heartbeat: the containers it released ({@link Wire.ContainerRef} records), its
   * asks (see {@link Asks}) and its blacklist changes. Returns its headroom as
   * {@code [memory, vcores]}.
   */
  long[] allocate(int app, long[] released, int[] askInts, long[] askLongs, String[] askNames,
      String[] askLabels, String[] blacklistAdditions, String[] blacklistRemovals,
      boolean waitingForAm) {
    return whileOpen(h -> allocate(h, app, released, askInts, askLongs, askNames, askLabels,
        blacklistAdditions, blacklistRemovals, waitingForAm));
  }

  /**
   * Checks whether an application may move to {@code target} and, with {@code commit},
   * moves it. Returns the destination leaf's full path.
   *
   * @throws NoSuchLeafQueueException if {@code target} names no leaf queue
   * @throws ApplicationRejectedException if the leaf does not admit the application
   */
  String moveApplication(int app, String target, boolean commit)
      throws NoSuchLeafQueueException, ApplicationRejectedException {
    long h = enter();
    try {
      return moveApplication(h, app, target, commit);
    } finally {
      exit();
    }
  }

  /**
   * The priority an application submitted or updated to {@code queue} by {@code user}
   * (null: no caller, no priority ACL) runs at, as {@code (priority << 1) | allowed}.
   */
  long applicationPriority(String queue, boolean requested, int priority, int clusterMax,
      String user, String[] groups) {
    return whileOpen(h -> applicationPriority(h, queue, requested, priority, clusterMax, user,
        groups));
  }

  /**
   * The lifetime (seconds) an application submitted to {@code queue} asking for
   * {@code requested} gets.
   */
  long applicationLifetime(String queue, long requested) {
    return whileOpen(h -> applicationLifetime(h, queue, requested));
  }

  /** The longest lifetime (seconds) of {@code queue}'s applications; -1 if it is not a leaf. */
  long maximumApplicationLifetime(String queue) {
    return whileOpen(h -> maximumApplicationLifetime(h, queue));
  }

  void updatePriority(int app, int priority) {
    runWhileOpen(h -> updatePriority(h, app, priority));
  }

  /** Records a container a NodeManager reported after an RM restart; false if not taken. */
  boolean recoverContainer(int app, int attempt, long number, int node, long memory, long vcores,
      int priority, long allocationRequestId, boolean am) {
    return whileOpen(h -> recoverContainer(h, app, attempt, number, node, memory, vcores,
        priority, allocationRequestId, am));
  }

  /**
   * Every container the core holds, one {@link Wire.ContainerReport} record each (a
   * diagnostics native: test and benchmark builds of the library only).
   */
  long[] containerReport() {
    return whileOpen(NativeScheduler::containerReport);
  }

  /**
   * Whether the last preemption round's ideal assignment hung on the order of equally
   * under-served queues, an order Apache's policy takes from identity hash codes (a
   * diagnostics native, for the side-by-side harness).
   */
  boolean preemptionTieOrderMattered() {
    return whileOpen(NativeScheduler::preemptionTieOrderMattered);
  }

  /** Every queue's full path, in tree order (the order of {@link #queueReport}'s records). */
  /**
   * The configuration keys of the queues created at run time, as
   * {@code [name, value, name, value, …]}: their parents' templates written under their
   * paths, as Apache's configuration holds them.
   */
  String[] dynamicQueueKeys() {
    return whileOpen(NativeScheduler::dynamicQueueKeys);
  }

  /**
   * Whether a submission by {@code user} to the missing {@code queue} would create a queue
   * whose ACLs (its parent's templates', the queues above it) refuse the user.
   */
  boolean creationDenied(String queue, String user, String[] groups) {
    return whileOpen(h -> creationDenied(h, queue, user, groups));
  }

  /** One round of the deletion of idle auto-created queues; the paths deleted. */
  String[] deleteExpiredQueues() {
    return whileOpen(NativeScheduler::deleteExpiredQueues);
  }

  /** One round of the queue-management monitor; whether some managed leaf changed. */
  boolean manageQueues() {
    return whileOpen(NativeScheduler::manageQueues);
  }

  String[] queuePaths() {
    return whileOpen(NativeScheduler::queuePaths);
  }

  /** A number that changes whenever the queues' paths or their order change. */
  long queueLayout() {
    return whileOpen(NativeScheduler::queueLayout);
  }

  /**
   * A number that changes whenever {@link #queueLayout} does or any queue's node labels
   * change: while it stays, {@link #queueNodeLabels} returns the same.
   */
  long queueLabelsVersion() {
    return whileOpen(NativeScheduler::queueLabelsVersion);
  }

  /** Every queue's maximum allocation in tree order ({@link Wire.QueueMaximum} records). */
  long[] queueMaximumAllocations() {
    return whileOpen(NativeScheduler::queueMaximumAllocations);
  }

  /**
   * Every queue's node labels, in tree order, two strings per queue: the labels it may
   * access (comma-separated, "*" for every label) and its default label expression (""
   * for none).
   */
  String[] queueNodeLabels() {
    return whileOpen(NativeScheduler::queueNodeLabels);
  }

  /** Every queue's figures and counts, in tree order. */
  QueueReport queueReport() {
    return whileOpen(NativeScheduler::queueReport);
  }

  /**
   * The QueueInfo figures of the queue at full path {@code path} alone
   * ({@link Wire.QueueInfoFigures}); null if no queue has that path.
   */
  double[] queueInfo(String path) {
    return whileOpen(h -> queueInfo(h, path));
  }

  /** Every leaf's users, leaves in tree order. */
  UserReport userReport() {
    return whileOpen(NativeScheduler::userReport);
  }

  /**
   * What applications waiting for their AM container were told about their activation
   * since the last call ({@link Wire.AmDiagnosis} records).
   */
  long[] amDiagnoses() {
    return whileOpen(NativeScheduler::amDiagnoses);
  }

  /** Every queue's figures and every leaf's users, of one moment. */
  ViewReport viewReport() {
    return whileOpen(NativeScheduler::viewReport);
  }

  /**
   * How many calls may have changed the core so far: equal counts at two moments mean
   * equal reports. Takes no lock in the core.
   */
  long changes() {
    return whileOpen(NativeScheduler::changes);
  }

  String resourceCalculator() {
    return whileOpen(NativeScheduler::resourceCalculator);
  }

  /** {@code user-metrics.enable}: whether new queues keep QueueMetrics per user. */
  boolean userMetricsEnabled() {
    return whileOpen(NativeScheduler::userMetricsEnabled);
  }

  /**
   * Whether {@code user} holds queue ACL {@code acl} (a {@link Wire.Acl} code) on {@code queue}.
   * With {@code enforcedOnly}, everyone holds every ACL while yarn.acl.enable is false
   * (what the RM's access checks expect); without, the ACLs are read as configured.
   */
  boolean checkAccess(String queue, int acl, String user, String[] groups,
      boolean enforcedOnly) {
    return whileOpen(h -> checkAccess(h, queue, acl, user, groups, enforcedOnly));
  }

  /**
   * Where the placement rules put a submission: {@code ["placed", queue, trace...]},
   * {@code ["rejected", message, trace...]} (what the submitter is told) or
   * {@code ["unplaced", "", trace...]}, the trace
   * saying rule by rule how the answer was reached.
   */
  String[] place(String user, String[] groups, String queue, String applicationName,
      boolean recovery) {
    return whileOpen(h -> place(h, user, groups, queue, applicationName, recovery));
  }

  /** A panic the next call that changes the core makes (for the tests of the seam). */
  static final int FAULT_PANIC_WHILE_CHANGING = 1;
  /** A panic the next call that only reads the core makes (for the tests of the seam). */
  static final int FAULT_PANIC_WHILE_READING = 2;

  /**
   * Arms a panic in the core ({@link #FAULT_PANIC_WHILE_CHANGING} or
   * {@link #FAULT_PANIC_WHILE_READING}): how the tests show what the RM does with one.
   * Never called in normal operation.
   */
  void injectFault(int fault) {
    runWhileOpen(h -> injectFault(h, fault));
  }

  /**
   * Bytes every native core in this process holds on the heap (for memory benchmarks; a
   * diagnostics native).
   */
  static native long nativeHeapBytes();

  /**
   * Makes the native core panic on purpose; the panic must come back as a
   * {@link NativeSchedulerPanicException} carrying {@code message} (a diagnostics native).
   */
  static native void checkPanicFunnel(String message);

  /**
   * The Rust scenario reader's outline of a scenario file: its initial configuration, then
   * each step as "LINE VERB" (a refresh followed by its configuration). A diagnostics native,
   * for the test that keeps the Java harness's reader in agreement with it.
   */
  static native String[] scenarioOutline(String text, String baseDir);

  private static native long create(byte[] xml, String source, long[] clusterSettings, long epoch,
      String[] baseProperties, String[] overlayProperties, String[] systemProperties);

  private static native void destroy(long handle);

  private static native long prepareRefresh(long handle, byte[] xml, String source,
      String[] baseProperties, String[] overlayProperties, String[] systemProperties);

  private static native String[] commitRefresh(long handle, long prepared);

  private static native void discardRefresh(long prepared);

  private static native void injectFault(long handle, int fault);

  private static native int addNode(long handle, String nodeId, String host, String rack,
      long memory, long vcores, String label, boolean exclusive);

  private static native void relabelNodes(long handle, String[] labels, int[] exclusive,
      int[] nodes, String[] nodeLabels);

  private static native long[] removeNode(long handle, int node);

  private static native void updateNodeResource(long handle, int node, long memory, long vcores);

  private static native void updateClusterResource(long handle);

  private static native long[] nodeUpdate(long handle, int node, long[] finished);

  private static native void release(long handle, long[] containers);

  private static native int submit(long handle, long clusterTimestamp, int id, String queue,
      String user, String[] groups, long priority, boolean recovering, boolean placed,
      long amMemory, long amVcores, String amLabel) throws ApplicationRejectedException;

  private static native String applicationQueue(long handle, int app);

  private static native boolean applicationActive(long handle, int app);

  private static native void addAttempt(long handle, int app, int attemptId,
      boolean transferState, long epoch);

  private static native void removeAttempt(long handle, int app);

  private static native long[] removeApp(long handle, int app);

  private static native long[] preemptionRound(long handle, long now);

  private static native boolean containerKillable(long handle, int app, int attempt,
      long number);

  private static native long[] takeKilled(long handle);

  private static native boolean moveReservation(long handle, int app, int attempt, long number,
      int from, int to);

  private static native long takeContainerNumber(long handle, int app);

  private static native long[] allocate(long handle, int app, long[] released, int[] askInts,
      long[] askLongs, String[] askNames, String[] askLabels, String[] blacklistAdditions,
      String[] blacklistRemovals, boolean waitingForAm);

  private static native String moveApplication(long handle, int app, String target,
      boolean commit) throws NoSuchLeafQueueException, ApplicationRejectedException;

  private static native long applicationPriority(long handle, String queue, boolean requested,
      int priority, int clusterMax, String user, String[] groups);

  private static native long applicationLifetime(long handle, String queue, long requested);

  private static native long maximumApplicationLifetime(long handle, String queue);

  private static native void updatePriority(long handle, int app, int priority);

  private static native boolean recoverContainer(long handle, int app, int attempt, long number,
      int node, long memory, long vcores, int priority, long allocationRequestId, boolean am);

  private static native long[] containerReport(long handle);

  private static native boolean preemptionTieOrderMattered(long handle);

  private static native String[] queuePaths(long handle);

  private static native long queueLayout(long handle);

  private static native long queueLabelsVersion(long handle);

  private static native long[] queueMaximumAllocations(long handle);

  private static native String[] queueNodeLabels(long handle);

  private static native String[] dynamicQueueKeys(long handle);

  private static native String[] deleteExpiredQueues(long handle);

  private static native boolean manageQueues(long handle);

  private static native boolean creationDenied(long handle, String queue, String user,
      String[] groups);

  private static native QueueReport queueReport(long handle);

  private static native double[] queueInfo(long handle, String path);

  private static native UserReport userReport(long handle);

  private static native ViewReport viewReport(long handle);

  private static native long[] amDiagnoses(long handle);

  private static native long changes(long handle);

  private static native String resourceCalculator(long handle);

  private static native boolean userMetricsEnabled(long handle);

  private static native boolean checkAccess(long handle, String queue, int acl, String user,
      String[] groups, boolean enforcedOnly);

  private static native String[] place(long handle, String user, String[] groups, String queue,
      String applicationName, boolean recovery);
}
