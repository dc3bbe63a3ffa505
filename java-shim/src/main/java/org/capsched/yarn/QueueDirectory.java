package org.capsched.yarn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
