package org.capsched.yarn;

/**
 * The Rust scheduler core behind one opaque handle. Every method is one JNI crossing; the
 * wire formats are documented in {@code rust-core/src/jni/native_scheduler.rs}.
 *
 * <p>Thread safety: the native side serialises calls with its own lock. {@link #close()}
 * frees the handle exactly once; callers stop using the object before closing it (the
 * scheduler closes it in {@code serviceStop}).
 */
final class NativeScheduler implements AutoCloseable {
  /** Longs per allocation returned by {@link #nodeUpdate}. */
  static final int ALLOCATION_STRIDE = 9;
  /** Allocation kinds, the last long of each allocation. */
  static final int ALLOCATE = 0;
  static final int RESERVE = 1;
  static final int UNRESERVE = 2;
  static final int ALLOCATE_RESERVED = 3;
  /** Doubles per queue returned by {@link #queueReport}. */
  static final int QUEUE_REPORT_STRIDE = 17;
  /** Longs per container returned by {@link #containerReport}. */
  static final int CONTAINER_REPORT_STRIDE = 6;
  /** Strings per queue returned by {@link #queueStrings}. */
  static final int QUEUE_STRINGS_STRIDE = 3;

  static {
    NativeLoader.load();
  }

  private long handle;

  /**
   * Loads the configuration and creates the core.
   *
   * @param clusterSettings minimum memory, minimum vcores, maximum memory, maximum vcores,
   *     ACLs enabled (1) or not (0)
   * @throws SchedulerConfigurationException if the configuration is invalid
   */
  NativeScheduler(byte[] xml, String source, long[] clusterSettings, long epoch,
      String[] baseProperties, String[] systemProperties) {
    this.handle = create(xml, source, clusterSettings, epoch, baseProperties, systemProperties);
  }

  private synchronized long handle() {
    if (handle == 0) {
      throw new IllegalStateException("the native scheduler has been closed");
    }
    return handle;
  }

  @Override
  public synchronized void close() {
    long h = handle;
    handle = 0;
    if (h != 0) {
      destroy(h);
    }
  }

  String refresh(byte[] xml, String source, String[] baseProperties, String[] systemProperties) {
    return refresh(handle(), xml, source, baseProperties, systemProperties);
  }

  int addNode(String nodeId, String host, String rack, long memory, long vcores) {
    return addNode(handle(), nodeId, host, rack, memory, vcores);
  }

  long[] removeNode(int node) {
    return removeNode(handle(), node);
  }

  void updateNodeResource(int node, long memory, long vcores) {
    updateNodeResource(handle(), node, memory, vcores);
  }

  long[] nodeUpdate(int node, long[] finished) {
    return nodeUpdate(handle(), node, finished);
  }

  void release(long[] containers) {
    release(handle(), containers);
  }

  int submit(long clusterTimestamp, int id, String queue, String user, String[] groups,
      long priority, boolean recovering, long amMemory, long amVcores, String[] out) {
    return submit(handle(), clusterTimestamp, id, queue, user, groups, priority, recovering,
        amMemory, amVcores, out);
  }

  void addAttempt(int app, int attemptId) {
    addAttempt(handle(), app, attemptId);
  }

  void removeAttempt(int app) {
    removeAttempt(handle(), app);
  }

  long[] removeApp(int app) {
    return removeApp(handle(), app);
  }

  long[] allocate(int app, int[] askInts, long[] askLongs, String[] askNames,
      String[] blacklistAdditions, String[] blacklistRemovals, boolean waitingForAm) {
    return allocate(handle(), app, askInts, askLongs, askNames, blacklistAdditions,
        blacklistRemovals, waitingForAm);
  }

  /** {@link #moveApplication} results besides 0 (allowed, or moved). */
  static final int MOVE_NO_SUCH_LEAF = 1;
  static final int MOVE_NOT_ADMITTED = 2;

  /**
   * Checks whether an application may move to {@code target} and, with {@code commit},
   * moves it. Returns 0 with {@code out[0]} the destination's full path; otherwise
   * {@link #MOVE_NO_SUCH_LEAF} or {@link #MOVE_NOT_ADMITTED} with {@code out[0]} the reason.
   */
  int moveApplication(int app, String target, boolean commit, String[] out) {
    return moveApplication(handle(), app, target, commit, out);
  }

  /** The priority an application submitted or updated to {@code queue} runs at. */
  int applicationPriority(String queue, boolean requested, int priority, int clusterMax) {
    return applicationPriority(handle(), queue, requested, priority, clusterMax);
  }

  void updatePriority(int app, int priority) {
    updatePriority(handle(), app, priority);
  }

  /** Records a container a NodeManager reported after an RM restart; false if not taken. */
  boolean recoverContainer(int app, long number, int node, long memory, long vcores,
      int priority, long allocationRequestId) {
    return recoverContainer(handle(), app, number, node, memory, vcores, priority,
        allocationRequestId);
  }

  /**
   * Every container the core holds, {@link #CONTAINER_REPORT_STRIDE} longs each:
   * application, number, node, memory, vcores, and 0 (live) or 1 (reserved).
   */
  long[] containerReport() {
    return containerReport(handle());
  }

  String[] queueStrings() {
    return queueStrings(handle());
  }

  double[] queueReport() {
    return queueReport(handle());
  }

  String resourceCalculator() {
    return resourceCalculator(handle());
  }

  /** {@code user-metrics.enable}: whether new queues keep QueueMetrics per user. */
  boolean userMetricsEnabled() {
    return userMetricsEnabled(handle());
  }

  /**
   * Whether {@code user} holds queue ACL {@code acl} (a QueueACL ordinal) on {@code queue}.
   * With {@code enforcedOnly}, everyone holds every ACL while yarn.acl.enable is false
   * (what the RM's access checks expect); without, the ACLs are read as configured.
   */
  boolean checkAccess(String queue, int acl, String user, String[] groups,
      boolean enforcedOnly) {
    return checkAccess(handle(), queue, acl, user, groups, enforcedOnly);
  }

  /** Bytes every native core in this process holds on the heap (for memory benchmarks). */
  static native long nativeHeapBytes();

  /**
   * Makes the native core panic on purpose; the panic must come back as a
   * {@link NativeSchedulerPanicException} carrying {@code message}.
   */
  static native void checkPanicFunnel(String message);

  private static native long create(byte[] xml, String source, long[] clusterSettings, long epoch,
      String[] baseProperties, String[] systemProperties);

  private static native void destroy(long handle);

  private static native String refresh(long handle, byte[] xml, String source,
      String[] baseProperties, String[] systemProperties);

  private static native int addNode(long handle, String nodeId, String host, String rack,
      long memory, long vcores);

  private static native long[] removeNode(long handle, int node);

  private static native void updateNodeResource(long handle, int node, long memory, long vcores);

  private static native long[] nodeUpdate(long handle, int node, long[] finished);

  private static native void release(long handle, long[] containers);

  private static native int submit(long handle, long clusterTimestamp, int id, String queue,
      String user, String[] groups, long priority, boolean recovering, long amMemory,
      long amVcores, String[] out);

  private static native void addAttempt(long handle, int app, int attemptId);

  private static native void removeAttempt(long handle, int app);

  private static native long[] removeApp(long handle, int app);

  private static native long[] allocate(long handle, int app, int[] askInts, long[] askLongs,
      String[] askNames, String[] blacklistAdditions, String[] blacklistRemovals,
      boolean waitingForAm);

  private static native int moveApplication(long handle, int app, String target,
      boolean commit, String[] out);

  private static native int applicationPriority(long handle, String queue, boolean requested,
      int priority, int clusterMax);

  private static native void updatePriority(long handle, int app, int priority);

  private static native boolean recoverContainer(long handle, int app, long number, int node,
      long memory, long vcores, int priority, long allocationRequestId);

  private static native long[] containerReport(long handle);

  private static native String[] queueStrings(long handle);

  private static native double[] queueReport(long handle);

  private static native String resourceCalculator(long handle);

  private static native boolean userMetricsEnabled(long handle);

  private static native boolean checkAccess(long handle, String queue, int acl, String user,
      String[] groups, boolean enforcedOnly);
}
