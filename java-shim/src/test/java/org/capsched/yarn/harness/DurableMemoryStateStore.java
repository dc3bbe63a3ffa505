package org.capsched.yarn.harness;

import java.util.Map;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.MockMemoryRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.records.ApplicationStateData;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.records.impl.pb.ApplicationStateDataPBImpl;

/**
 * Hadoop's in-memory state store for tests, made to hand each restarted RM its own copy of
 * every application's state, as a real store (ZooKeeper, a file system) does by reading
 * what it wrote. Hadoop's hands every RM the same submission context objects; an RM that
 * recovers a finished application clears its AM launch context to save memory, and the
 * next RM to recover from the store then fails on the missing context — so a second
 * restart in one run never worked.
 */
public final class DurableMemoryStateStore extends MockMemoryRMStateStore {
  @Override
  public synchronized RMState loadState() throws Exception {
    RMState state = super.loadState();
    for (Map.Entry<ApplicationId, ApplicationStateData> e
        : state.getApplicationState().entrySet()) {
      ApplicationStateData stored = e.getValue();
      ApplicationStateData copy =
          new ApplicationStateDataPBImpl(((ApplicationStateDataPBImpl) stored).getProto());
      copy.attempts.putAll(stored.attempts);
      e.setValue(copy);
    }
    return state;
  }
}
