package org.capsched.yarn;

import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;

/**
 * The wire protocol with the native core: every record layout, field index and code that
 * crosses the boundary, mirroring {@code rust-core/src/jni/wire.rs}. A cargo test reads
 * this file and fails when the two disagree, so a constant is changed in both or in
 * neither. Codes map to Hadoop's enums by name here, never by ordinal.
 */
final class Wire {
  private Wire() {
  }

  /** Fields of one allocation in {@code nodeUpdate}'s result (longs). */
  static final class Allocation {
    static final int APP = 0;
    static final int ATTEMPT = 1;
    static final int NUMBER = 2;
    static final int MEMORY = 3;
    static final int VCORES = 4;
    static final int PRIORITY = 5;
    static final int ALLOCATION_REQUEST_ID = 6;
    static final int LOCALITY = 7;
    static final int KIND = 8;
    static final int NODE = 9;
    static final int STRIDE = 10;

    private Allocation() {
    }
  }

  /**
   * Fields of one container in the lists of containers that cross the boundary: released
   * or finished ones (to the core), lost or left ones (from it).
   */
  static final class ContainerRef {
    static final int APP = 0;
    static final int ATTEMPT = 1;
    static final int NUMBER = 2;
    static final int KIND = 3;
    static final int STRIDE = 4;

    private ContainerRef() {
    }
  }

  /** How far the RM is done with a container ({@link ContainerRef#KIND}). */
  static final class ReleaseKind {
    static final int DONE = 0;
    static final int NODE_HOLDS = 1;
    static final int NODE_FREED = 2;
    static final int LAUNCHED = 3;

    private ReleaseKind() {
    }
  }

  /** What the RM does with an allocation. */
  static final class Kind {
    static final int ALLOCATE = 0;
    static final int RESERVE = 1;
    static final int UNRESERVE = 2;
    static final int ALLOCATE_RESERVED = 3;
    /** End a running container lazy preemption marked killable, as PREEMPTED. */
    static final int PREEMPT = 4;

    private Kind() {
    }
  }

  /** Localities, as YARN's {@link NodeType}. */
  static final class Locality {
    static final int NODE_LOCAL = 0;
    static final int RACK_LOCAL = 1;
    static final int OFF_SWITCH = 2;

    private Locality() {
    }
  }

  /** Queue ACLs, as YARN's {@link QueueACL}. */
  static final class Acl {
    static final int SUBMIT_APPLICATIONS = 0;
    static final int ADMINISTER_QUEUE = 1;

    private Acl() {
    }
  }

  /** A queue's fractions and factors in {@link QueueReport#figures} (doubles). */
  static final class QueueFigures {
    static final int CAPACITY = 0;
    static final int MAXIMUM_CAPACITY = 1;
    static final int ABSOLUTE_CAPACITY = 2;
    static final int ABSOLUTE_MAXIMUM_CAPACITY = 3;
    static final int USED_CAPACITY = 4;
    static final int ABSOLUTE_USED_CAPACITY = 5;
    static final int WEIGHT = 6;
    static final int USER_LIMIT_FACTOR = 7;
    static final int MINIMUM_USER_LIMIT_PERCENT = 8;
    static final int MAXIMUM_AM_RESOURCE_PERCENT = 9;
    static final int NORMALIZED_WEIGHT = 10;
    static final int STRIDE = 11;

    private QueueFigures() {
    }
  }

  /**
   * One queue's QueueInfo figures, as {@code queueInfo} returns them (doubles; the state,
   * limit and switches are whole numbers, exact as doubles).
   */
  static final class QueueInfoFigures {
    static final int CAPACITY = 0;
    static final int MAXIMUM_CAPACITY = 1;
    static final int ABSOLUTE_CAPACITY = 2;
    static final int USED_CAPACITY = 3;
    static final int WEIGHT = 4;
    static final int STATE = 5;
    static final int MAX_PARALLEL_APPS = 6;
    static final int PREEMPTION_DISABLED = 7;
    static final int INTRA_QUEUE_PREEMPTION_DISABLED = 8;
    static final int STRIDE = 9;

    private QueueInfoFigures() {
    }
  }

  /** A queue's amounts, counts and links in {@link QueueReport#counts} (longs). */
  static final class QueueCounts {
    static final int USED_MEMORY = 0;
    static final int USED_VCORES = 1;
    static final int APPLICATIONS = 2;
    static final int STATE = 3;
    static final int PARENT = 4;
    static final int MAXIMUM_APPLICATIONS = 5;
    static final int MAX_PARALLEL_APPS = 6;
    static final int MAXIMUM_ALLOCATION_MEMORY = 7;
    static final int MAXIMUM_ALLOCATION_VCORES = 8;
    static final int EFFECTIVE_MIN_MEMORY = 9;
    static final int EFFECTIVE_MIN_VCORES = 10;
    static final int EFFECTIVE_MAX_MEMORY = 11;
    static final int EFFECTIVE_MAX_VCORES = 12;
    static final int AM_LIMIT_MEMORY = 13;
    static final int AM_LIMIT_VCORES = 14;
    static final int AM_USED_MEMORY = 15;
    static final int AM_USED_VCORES = 16;
    static final int USER_AM_LIMIT_MEMORY = 17;
    static final int USER_AM_LIMIT_VCORES = 18;
    static final int ACTIVE_APPLICATIONS = 19;
    static final int PENDING_APPLICATIONS = 20;
    static final int RESERVED_MEMORY = 21;
    static final int RESERVED_VCORES = 22;
    static final int MAXIMUM_APPLICATIONS_PER_USER = 23;
    static final int RUNNABLE_APPLICATIONS = 24;
    static final int MAXIMUM_APPLICATION_LIFETIME = 25;
    static final int DEFAULT_APPLICATION_LIFETIME = 26;
    static final int PREEMPTION_DISABLED = 27;
    static final int INTRA_QUEUE_PREEMPTION_DISABLED = 28;
    static final int PRIORITY_UTILIZATION = 29;
    static final int LEAF = 30;
    static final int DYNAMIC = 31;
    static final int AUTO_CREATION = 32;
    static final int CONTAINERS = 33;
    static final int STRIDE = 34;

    private QueueCounts() {
    }
  }

  /** How a queue came to be, in {@link QueueCounts#DYNAMIC} (Apache's {@code creationMethod}). */
  static final class CreationCode {
    static final int STATIC = 0;
    static final int FLEXIBLE = 1;
    static final int LEGACY = 2;

    private CreationCode() {
    }
  }

  /**
   * Whether queues may be created under a queue, in {@link QueueCounts#AUTO_CREATION}
   * (Apache's {@code autoCreationEligibility}).
   */
  static final class AutoCreationCode {
    static final int OFF = 0;
    static final int FLEXIBLE = 1;
    static final int LEGACY = 2;

    private AutoCreationCode() {
    }
  }

  /** A queue's state in {@link QueueCounts#STATE} (YARN's QueueState, by name). */
  static final class QueueStateCode {
    static final int RUNNING = 0;
    static final int STOPPED = 1;
    static final int DRAINING = 2;

    private QueueStateCode() {
    }
  }

  /** One user of one leaf in {@link UserReport#counts} (longs). */
  static final class UserCounts {
    static final int QUEUE = 0;
    static final int USED_MEMORY = 1;
    static final int USED_VCORES = 2;
    static final int AM_USED_MEMORY = 3;
    static final int AM_USED_VCORES = 4;
    static final int LIMIT_MEMORY = 5;
    static final int LIMIT_VCORES = 6;
    static final int ACTIVE_APPLICATIONS = 7;
    static final int PENDING_APPLICATIONS = 8;
    static final int APPS_COUNTED_ACTIVE = 9;
    static final int HEADROOM_MEMORY = 10;
    static final int HEADROOM_VCORES = 11;
    static final int AM_LIMIT_MEMORY = 12;
    static final int AM_LIMIT_VCORES = 13;
    static final int DEFAULT_USED_MEMORY = 14;
    static final int DEFAULT_USED_VCORES = 15;
    static final int STRIDE = 16;

    private UserCounts() {
    }
  }

  /**
   * One labelled partition of one queue or user in {@link PartitionReport#counts} (longs);
   * its label and fractions are at the row's index.
   */
  static final class PartitionCounts {
    static final int OWNER = 0;
    static final int KIND = 1;
    static final int FLAGS = 2;
    static final int USED_MEMORY = 3;
    static final int USED_VCORES = 4;
    static final int RESERVED_MEMORY = 5;
    static final int RESERVED_VCORES = 6;
    static final int AM_USED_MEMORY = 7;
    static final int AM_USED_VCORES = 8;
    static final int AM_LIMIT_MEMORY = 9;
    static final int AM_LIMIT_VCORES = 10;
    static final int USER_AM_LIMIT_MEMORY = 11;
    static final int USER_AM_LIMIT_VCORES = 12;
    static final int EFFECTIVE_MIN_MEMORY = 13;
    static final int EFFECTIVE_MIN_VCORES = 14;
    static final int EFFECTIVE_MAX_MEMORY = 15;
    static final int EFFECTIVE_MAX_VCORES = 16;
    static final int CONFIGURED_MAX_MEMORY = 17;
    static final int CONFIGURED_MAX_VCORES = 18;
    static final int STRIDE = 19;

    private PartitionCounts() {
    }
  }

  /** A queue's labelled partition's fractions in {@link PartitionReport#figures} (doubles). */
  static final class PartitionFigures {
    static final int CAPACITY = 0;
    static final int MAXIMUM_CAPACITY = 1;
    static final int ABSOLUTE_CAPACITY = 2;
    static final int ABSOLUTE_MAXIMUM_CAPACITY = 3;
    static final int USED_CAPACITY = 4;
    static final int ABSOLUTE_USED_CAPACITY = 5;
    static final int MAXIMUM_AM_RESOURCE_PERCENT = 6;
    static final int WEIGHT = 7;
    static final int NORMALIZED_WEIGHT = 8;
    static final int STRIDE = 9;

    private PartitionFigures() {
    }
  }

  /** Whose partition a row is, in {@link PartitionCounts#KIND}. */
  static final class PartitionKind {
    static final int QUEUE = 0;
    static final int USER = 1;

    private PartitionKind() {
    }
  }

  /** What a queue's row is, in {@link PartitionCounts#FLAGS} (or-ed). */
  static final class PartitionFlags {
    static final int CAPACITIES = 1;
    static final int USAGE = 2;
    static final int CONFIGURED = 4;

    private PartitionFlags() {
    }
  }

  /** Fields of one container in {@code containerReport}'s result (longs; test builds). */
  static final class ContainerReport {
    static final int APP = 0;
    static final int ATTEMPT = 1;
    static final int NUMBER = 2;
    static final int NODE = 3;
    static final int MEMORY = 4;
    static final int VCORES = 5;
    static final int RESERVED = 6;
    static final int STRIDE = 7;

    private ContainerReport() {
    }
  }

  /** Fields of one action in {@code preemptionRound}'s result (longs). */
  static final class PreemptionAction {
    static final int KIND = 0;
    static final int APP = 1;
    static final int ATTEMPT = 2;
    static final int NUMBER = 3;
    static final int NODE = 4;
    static final int TARGET = 5;
    static final int STRIDE = 6;

    private PreemptionAction() {
    }
  }

  /** What the RM does with a container a preemption round chose. */
  static final class PreemptionKind {
    static final int MARK = 0;
    static final int KILL = 1;
    static final int KILL_RESERVED = 2;
    static final int MOVE_RESERVATION = 3;

    private PreemptionKind() {
    }
  }

  /** The {@link NodeType} a locality code names. */
  static NodeType nodeType(long code) {
    switch ((int) code) {
      case Locality.NODE_LOCAL:
        return NodeType.NODE_LOCAL;
      case Locality.RACK_LOCAL:
        return NodeType.RACK_LOCAL;
      case Locality.OFF_SWITCH:
        return NodeType.OFF_SWITCH;
      default:
        throw new IllegalArgumentException("unknown locality code " + code);
    }
  }

  /** The code of a {@link QueueACL}. */
  static int aclCode(QueueACL acl) {
    switch (acl) {
      case SUBMIT_APPLICATIONS:
        return Acl.SUBMIT_APPLICATIONS;
      case ADMINISTER_QUEUE:
        return Acl.ADMINISTER_QUEUE;
      default:
        throw new IllegalArgumentException("no code for queue ACL " + acl);
    }
  }

  /** Records of {@code amDiagnoses}' result (longs), and the diagnoses. */
  static final class AmDiagnosis {
    static final int APP = 0;
    static final int CODE = 1;
    static final int STRIDE = 2;
    static final int ACTIVATED = 0;
    static final int QUEUE_AM_LIMIT = 1;
    static final int USER_AM_LIMIT = 2;
    static final int CLUSTER_EMPTY = 3;

    private AmDiagnosis() {
    }
  }

  /** Fields of one queue in {@code queueMaximumAllocations}' result, queues in tree order. */
  static final class QueueMaximum {
    static final int MEMORY = 0;
    static final int VCORES = 1;
    static final int STRIDE = 2;

    private QueueMaximum() {
    }
  }
}
