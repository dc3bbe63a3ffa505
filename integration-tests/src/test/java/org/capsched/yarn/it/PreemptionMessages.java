package org.capsched.yarn.it;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.yarn.ams.ApplicationMasterServiceContext;
import org.apache.hadoop.yarn.ams.ApplicationMasterServiceProcessor;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.FinishApplicationMasterRequest;
import org.apache.hadoop.yarn.api.protocolrecords.FinishApplicationMasterResponse;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterRequest;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.exceptions.YarnException;

/**
 * A link in the RM's ApplicationMaster-service processing chain
 * ({@code yarn.resourcemanager.application-master-service.processors}) that records what
 * each AM's {@code allocate()} answers carry about preemption, as they leave the RM: the
 * containers the AM was told it will lose, and those it was told ended as PREEMPTED.
 */
public final class PreemptionMessages implements ApplicationMasterServiceProcessor {
  /** Per attempt, the containers named in a {@code PreemptionMessage}. */
  static final Map<ApplicationAttemptId, Set<ContainerId>> TOLD = new ConcurrentHashMap<>();
  /** Per attempt, the containers reported completed with exit status PREEMPTED. */
  static final Map<ApplicationAttemptId, Set<ContainerId>> PREEMPTED = new ConcurrentHashMap<>();

  private ApplicationMasterServiceProcessor next;

  @Override
  public void init(ApplicationMasterServiceContext context,
      ApplicationMasterServiceProcessor nextProcessor) {
    this.next = nextProcessor;
  }

  @Override
  public void registerApplicationMaster(ApplicationAttemptId attempt,
      RegisterApplicationMasterRequest request, RegisterApplicationMasterResponse response)
      throws IOException, YarnException {
    next.registerApplicationMaster(attempt, request, response);
  }

  @Override
  public void allocate(ApplicationAttemptId attempt, AllocateRequest request,
      AllocateResponse response) throws YarnException {
    next.allocate(attempt, request, response);
    PreemptionMessage message = response.getPreemptionMessage();
    if (message != null && message.getContract() != null) {
      for (PreemptionContainer c : message.getContract().getContainers()) {
        TOLD.computeIfAbsent(attempt, k -> ConcurrentHashMap.newKeySet()).add(c.getId());
      }
    }
    if (message != null && message.getStrictContract() != null) {
      for (PreemptionContainer c : message.getStrictContract().getContainers()) {
        TOLD.computeIfAbsent(attempt, k -> ConcurrentHashMap.newKeySet()).add(c.getId());
      }
    }
    for (ContainerStatus s : response.getCompletedContainersStatuses()) {
      if (s.getExitStatus() == ContainerExitStatus.PREEMPTED) {
        PREEMPTED.computeIfAbsent(attempt, k -> ConcurrentHashMap.newKeySet())
            .add(s.getContainerId());
      }
    }
  }

  @Override
  public void finishApplicationMaster(ApplicationAttemptId attempt,
      FinishApplicationMasterRequest request, FinishApplicationMasterResponse response) {
    next.finishApplicationMaster(attempt, request, response);
  }
}
