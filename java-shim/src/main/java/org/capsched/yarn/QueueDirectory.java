package org.capsched.yarn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * An immutable index of the RM-side queue objects, in the core's tree order (root first).
 * Replaced as a whole on every refresh, so readers never see a half-built directory.
 */
final class QueueDirectory {
  static final QueueDirectory EMPTY = new QueueDirectory(Collections.<RustQueue>emptyList());

  private final List<RustQueue> queues;
  private final Map<String, Integer> indexByPath = new HashMap<>();
  private final Map<String, RustQueue> byShortName = new HashMap<>();

  QueueDirectory(List<RustQueue> inTreeOrder) {
    this.queues = Collections.unmodifiableList(new ArrayList<>(inTreeOrder));
    Map<String, Integer> shortNameCounts = new HashMap<>();
    for (int i = 0; i < queues.size(); i++) {
      RustQueue q = queues.get(i);
      indexByPath.put(q.getPath(), i);
      shortNameCounts.merge(q.getShortName(), 1, Integer::sum);
      byShortName.put(q.getShortName(), q);
    }
    // A short name shared by several queues resolves to none of them.
    byShortName.keySet().removeIf(name -> shortNameCounts.get(name) > 1);
  }

  /**
   * The directory for the queues the core now has ({@code paths}, in tree order, parents
   * first): a queue whose path this directory has keeps its RM-side object, so its metrics
   * live on; {@code newQueue} makes the others from their path and parent.
   */
  QueueDirectory rebuilt(String[] paths, BiFunction<String, RustQueue, RustQueue> newQueue) {
    Map<String, RustQueue> made = new HashMap<>();
    List<RustQueue> inOrder = new ArrayList<>();
    for (String path : paths) {
      RustQueue queue = byPath(path);
      if (queue == null) {
        int dot = path.lastIndexOf('.');
        queue = newQueue.apply(path, dot < 0 ? null : made.get(path.substring(0, dot)));
      }
      made.put(path, queue);
      inOrder.add(queue);
    }
    return new QueueDirectory(inOrder);
  }

  RustQueue byPath(String path) {
    Integer i = indexByPath.get(path);
    return i == null ? null : queues.get(i);
  }

  RustQueue byShortName(String name) {
    return byShortName.get(name);
  }

  /** The queue a client names: by full path, else by a short name no other queue has. */
  RustQueue resolve(String name) {
    RustQueue q = byPath(name);
    return q != null ? q : byShortName(name);
  }

  int indexOf(String path) {
    Integer i = indexByPath.get(path);
    if (i == null) {
      throw new IllegalArgumentException("no queue " + path);
    }
    return i;
  }

  RustQueue at(int index) {
    return queues.get(index);
  }

  int size() {
    return queues.size();
  }

  List<RustQueue> all() {
    return queues;
  }

  RustQueue root() {
    return queues.get(0);
  }

  @Override
  public String toString() {
    List<String> paths = new ArrayList<>();
    for (RustQueue q : queues) {
      paths.add(q.getPath());
    }
    return "queues " + paths;
  }
}
