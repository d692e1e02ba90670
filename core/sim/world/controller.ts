/**
 * The controller and the timeline: what the scenario (or the page's user) does to the
 * cluster. Faults (crash, restart, a network partition, a store outage or slowdown), config
 * changes (tiering or the WAL turned on or off), new brokers, new replicas, clean leader
 * elections (KRaft's, immediate) and the clients' produce and consume requests.
 */
import type { Rule } from '../../domain/rules.js';
import { type ConfigValue, isBrokerConfigKey, isTopicConfigKey } from '../../domain/config.js';
import { assignEpoch, latestEpoch } from '../../domain/leader-epoch-cache.js';
import { alterTopicConfigs } from '../../domain/log-config-validation.js';
import { emptyLog, logEndOffset } from '../../domain/partition-log.js';
import type { StoreName } from '../../ports/object-store.js';
import { brokerZone, type TimelineAction } from '../../scenario/types.js';
import { produce, startConsumer } from './clients.js';
import type { Sim } from '../state/context.js';
import { quotasBrokerCrashed } from './quotas.js';
import { effectiveMinIsr, leaderFacts, machineState, replica, replicaFacts, tiered, walEnabled } from '../state/facts.js';
import { PARTITION_MACHINES } from '../runtime/machines.js';
import { BROKER_KEY, partitionKey, replicaStatsOf } from '../state/state.js';
import { cutTransfers } from './bandwidth.js';
import { dropParkedOnIsolation } from './network.js';
import { deleteRemoteOnDisable, startReplicaTasks } from './tiering.js';
import { deleteOrphans, startWalReplica, walBrokerCrashed } from './wal.js';

/** Applies one timeline action now (a scenario's event, or the page's user). */
export function applyTimeline(s: Sim, a: TimelineAction): void {
  const state = s.state;
  const now = state.nowMs;
  if ('topic' in a && a.topic !== undefined && 'partition' in a) s.touch(partitionKey(a.topic, a.partition));
  else s.touchAll();
  switch (a.kind) {
    case 'addReplica':
      return addReplica(s, a.topic, a.partition, a.broker);
    case 'produce':
      return produce(s, a.topic, a.partition, a.records, a.acks, a.zone);
    case 'consume':
      return startConsumer(s, a.topic, a.partition, a.fromOffset, a.records, a.broker, a.config, a.zone);
    case 'setConfig':
      return setConfig(s, a.values, a.topic);
    case 'objectStore': {
      const stores: StoreName[] = a.store ? [a.store] : ['tiered', 'wal'];
      for (const st of stores) {
        state.storeAvailable[st] = a.available;
        if (a.extraLatencyMs !== undefined) state.storeExtraLatencyMs[st] = a.extraLatencyMs;
      }
      const slow = a.extraLatencyMs !== undefined ? { extraLatencyMs: a.extraLatencyMs } : {};
      s.emit({ atMs: now, type: 'timeline', action: 'objectStore', stores, available: a.available, ...slow, rule: a.available ? (a.extraLatencyMs ? 'storeThrottled' : 'storeRecovered') : 'storeOutage' });
      return;
    }
    case 'isolate':
    case 'heal': {
      if (a.kind === 'isolate') state.isolated[String(a.broker)] = true;
      else delete state.isolated[String(a.broker)];
      s.emit({ atMs: now, type: 'broker', action: a.kind === 'isolate' ? 'isolated' : 'healed', broker: a.broker, rule: a.kind === 'isolate' ? 'networkPartition' : 'networkHealed' });
      if (a.kind === 'isolate') {
        dropParkedOnIsolation(s, a.broker);
        cutTransfers(s, a.broker, 'networkPartition');
      }
      return;
    }
    case 'crash':
      return crash(s, a.broker);
    case 'restart':
      return restart(s, a.broker);
    case 'electLeader':
      return electLeader(s, a.topic, a.partition, a.broker);
    case 'addBroker':
      return addBroker(s, a.broker);
    default:
      return unknownAction(a);
  }
}

/** Every timeline action kind has a case above: a new kind fails to compile until it does. */
function unknownAction(a: never): never {
  throw new Error(`unknown timeline action ${(a as { kind: string }).kind}`);
}

/**
 * A new broker starts and registers with the controller (KRaft's BrokerRegistration,
 * ClusterControlManager.registerBroker; the model unfences it at once). It joins with the
 * next broker id, in its zone by the scenario's rule (zones[id % zones.length]), with its
 * per-broker machine (the WAL combiner) and nothing else: it hosts no replica until a
 * reassignment adds one (addReplica). The id is checked again here because the page's
 * actions and a scenario's events share the ids: an addBroker whose id another took is told
 * as ignored.
 */
function addBroker(s: Sim, broker: number): void {
  const state = s.state;
  const now = state.nowMs;
  const next = state.brokers.length;
  if (broker !== next) {
    s.emit({ atMs: now, type: 'timeline', action: 'addBroker', broker, ignored: broker < next ? `broker ${broker} is already in the cluster` : `the next broker id is ${next}` });
    return;
  }
  const zone = brokerZone(s.scenario, broker);
  state.brokers.push({ id: broker, zone, alive: true, startedAtMs: now });
  s.createMachine(broker, BROKER_KEY, 'walCombiner');
  s.emit({ atMs: now, type: 'broker', action: 'added', broker, zone, rule: 'brokerRegistered' });
}

/**
 * A new, empty replica: it follows the leader from scratch (the KIP-1023 and classic
 * bootstraps). A broker that is down becomes a replica now and fetches once it restarts; a
 * partition with no leader gets its fetcher started when one is elected (becomeLeader), as
 * Kafka's reassignment adds the replica to the assignment in both cases
 * (ReplicationControlManager.validateManualPartitionAssignment only asks that the broker is
 * registered).
 */
function addReplica(s: Sim, topic: string, partition: number, broker: number): void {
  const state = s.state;
  const now = state.nowMs;
  const key = partitionKey(topic, partition);
  const part = state.partitions[key];
  if (state.brokers[broker] === undefined) {
    s.emit({ atMs: now, type: 'timeline', action: 'addReplica', broker, topic, partition, ignored: `no broker ${broker} in the cluster (addBroker adds one)` });
    return;
  }
  if (part.replicas.includes(broker)) {
    s.emit({ atMs: now, type: 'timeline', action: 'addReplica', broker, topic, partition, ignored: 'already a replica' });
    return;
  }
  part.replicas.push(broker);
  const stats = replicaStatsOf(state, key, broker);
  stats.addedAtMs = now;
  stats.isrJoinedAtMs = null;
  part.replicaStates[String(broker)] = { broker, log: emptyLog(0, now), highestOffsetInRemoteStorage: -1 };
  for (const name of PARTITION_MACHINES) s.createMachine(broker, key, name);
  s.emit({ atMs: now, type: 'timeline', action: 'addReplica', broker, topic, partition, rule: 'replicaAdded' });
  if (!state.brokers[broker].alive) return;
  startReplicaTasks(s, broker, key, 'follower');
  if (part.leader >= 0) startFetcher(s, broker, key);
}

/** A follower starts fetching from the partition's leader (and reading its WAL chunks). */
export function startFetcher(s: Sim, broker: number, key: string): void {
  const state = s.state;
  const part = state.partitions[key];
  const r = replica(state, key, broker);
  s.deliver(broker, key, 'fetcher', {
    type: 'fetcher.started',
    leader: part.leader,
    leaderEpoch: part.leaderEpoch,
    replica: replicaFacts(state, key, broker),
    lastFetchedEpoch: latestEpoch(r.log.leaderEpochs),
  });
  startWalReplica(s, broker, key);
}

/**
 * A config change, as Kafka's controller takes an IncrementalAlterConfigs: broker configs
 * apply cluster-wide; each topic's change is validated on the topic's configs merged with it
 * (ConfigurationControlManager.validateAlterConfig, LogConfig.validate;
 * core/domain/log-config-validation.ts), and a topic whose merged configs Kafka refuses is
 * answered INVALID_CONFIG with Kafka's message and keeps its configs.
 */
function setConfig(s: Sim, values: Record<string, ConfigValue>, topic?: string): void {
  const state = s.state;
  const now = state.nowMs;
  const wasTiered: Record<string, boolean> = {};
  const wasWal: Record<string, boolean> = {};
  for (const key of state.partitionOrder) {
    wasTiered[key] = tiered(state, key);
    wasWal[key] = walEnabled(state, key);
  }
  const topicValues: Record<string, ConfigValue> = {};
  for (const [k, v] of Object.entries(values)) {
    if (topic === undefined && isBrokerConfigKey(k)) (state.brokerConfig as Record<string, ConfigValue>)[k] = v;
    if (isTopicConfigKey(k)) topicValues[k] = v;
  }
  const refused = new Set<string>();
  if (Object.keys(topicValues).length > 0) {
    const systemEnabled = state.brokerConfig['remote.log.storage.system.enable'];
    for (const t of Object.keys(state.topicConfigs)) {
      if (topic !== undefined && topic !== t) continue;
      const r = alterTopicConfigs(state.topicConfigs[t], topicValues, systemEnabled);
      if (r.ok) {
        Object.assign(state.topicConfigs[t], r.next);
        continue;
      }
      refused.add(t);
      s.emit({ atMs: now, type: 'config', action: 'refused', topic: t, keys: Object.keys(topicValues), error: r.refusal.error, message: r.refusal.message, check: r.refusal.check, rule: 'configRefused' });
    }
  }
  for (const [k, v] of Object.entries(values)) {
    if (refused.size === 0 || (topic === undefined && isBrokerConfigKey(k))) {
      s.emit({ atMs: now, type: 'config', action: 'setConfig', key: k, value: v, ...(topic ? { topic } : {}), rule: 'configChanged' });
      continue;
    }
    // Some topics refused the change: name the topics that took it.
    if (!isTopicConfigKey(k)) continue;
    for (const t of Object.keys(state.topicConfigs)) {
      if ((topic === undefined || topic === t) && !refused.has(t)) s.emit({ atMs: now, type: 'config', action: 'setConfig', key: k, value: v, topic: t, rule: 'configChanged' });
    }
  }
  for (const key of state.partitionOrder) {
    if (wasTiered[key] && !tiered(state, key)) deleteRemoteOnDisable(s, key);
    const part = state.partitions[key];
    if (!wasWal[key] && walEnabled(state, key)) {
      // KIP-1176 turned on: the leader's combiner takes new bytes from its log end on, and
      // the followers start reading chunks (below that offset they still fetch records).
      if (part.leader >= 0) state.wal.next[key] = logEndOffset(replica(state, key, part.leader).log);
      for (const b of part.replicas) if (b !== part.leader && state.brokers[b].alive) startWalReplica(s, b, key);
    } else if (wasWal[key] && !walEnabled(state, key)) {
      for (const b of part.replicas) if (state.brokers[b].alive) s.deliver(b, key, 'walReplica', { type: 'wal.stopped' });
    }
  }
}

function crash(s: Sim, broker: number): void {
  const state = s.state;
  const now = state.nowMs;
  const b = state.brokers[broker];
  if (!b.alive) {
    s.emit({ atMs: now, type: 'broker', action: 'alreadyDown', broker, rule: 'crashWhileDown' });
    return;
  }
  b.alive = false;
  s.emit({ atMs: now, type: 'broker', action: 'crashed', broker, rule: 'brokerCrashed' });
  cutTransfers(s, broker, 'brokerUnreachable');
  // The combiner's pending bytes and its PUT in flight are lost with the broker's memory.
  s.createMachine(broker, BROKER_KEY, 'walCombiner');
  walBrokerCrashed(s, broker);
  quotasBrokerCrashed(state, broker);
  for (const key of state.partitionOrder) {
    const part = state.partitions[key];
    if (!part.replicas.includes(broker)) continue;
    const r = replica(state, key, broker);
    // In-memory state is lost; the log on disk survives.
    r.highestOffsetInRemoteStorage = -1;
    state.watch.highestOffsetInRemoteStorage[`${broker}|${key}`] = -1;
    for (const name of PARTITION_MACHINES) s.createMachine(broker, key, name);
    if (part.isr.includes(broker) && part.isr.length > 1) {
      part.isr = part.isr.filter((x) => x !== broker);
      s.emit({ atMs: now, type: 'isr', broker, topic: part.topic, partition: part.partition, isr: part.isr, added: [], removed: [broker], rule: 'brokerDown' });
      if (part.leader !== broker && part.leader >= 0 && state.brokers[part.leader].alive) {
        s.deliver(part.leader, key, 'leader', { type: 'partition.updated', isr: part.isr, ...leaderFacts(state, key, part.leader) });
      }
    }
    const sync = state.wal.tailSync[key];
    if (sync !== undefined && sync.broker === broker) {
      // The replica syncing the WAL tail crashed before it could lead: elect another.
      delete state.wal.tailSync[key];
      const next = nextLeader(s, key, broker);
      if (next !== undefined) becomeLeader(s, key, next, 'leaderCrashed');
      else s.emit({ atMs: now, type: 'leader', topic: part.topic, partition: part.partition, broker: -1, leaderEpoch: part.leaderEpoch, rule: 'noEligibleLeader' });
    }
    if (part.leader === broker) {
      const next = nextLeader(s, key, broker);
      if (next !== undefined) becomeLeader(s, key, next, 'leaderCrashed');
      else {
        part.leader = -1;
        s.emit({ atMs: now, type: 'leader', topic: part.topic, partition: part.partition, broker: -1, leaderEpoch: part.leaderEpoch, rule: 'noEligibleLeader' });
      }
    }
  }
}

/**
 * A clean election: the first replica in assignment order that is in the ISR and alive, not
 * the one that went down (PartitionChangeBuilder.electLeader: targetReplicas.stream()
 * .filter(isValidNewLeader).findFirst()).
 */
function nextLeader(s: Sim, key: string, down: number): number | undefined {
  const part = s.state.partitions[key];
  return part.replicas.find((x) => x !== down && part.isr.includes(x) && s.state.brokers[x].alive);
}

function restart(s: Sim, broker: number): void {
  const state = s.state;
  const now = state.nowMs;
  const b = state.brokers[broker];
  if (b.alive) {
    s.emit({ atMs: now, type: 'broker', action: 'alreadyUp', broker, rule: 'restartWhileUp' });
    return;
  }
  b.alive = true;
  b.startedAtMs = now;
  s.emit({ atMs: now, type: 'broker', action: 'restarted', broker, rule: 'brokerRestarted' });
  deleteOrphans(s, broker);
  for (const key of state.partitionOrder) {
    const part = state.partitions[key];
    if (!part.replicas.includes(broker)) continue;
    // A restarted broker reads the remote log metadata topic again before it knows anything.
    part.metadataReadyAtMs[String(broker)] = now + state.model.remoteLogMetadataLoadMs;
    if (part.leader === -1 && part.isr.includes(broker)) {
      becomeLeader(s, key, broker, 'lastInSyncReplicaReturned');
      continue;
    }
    startReplicaTasks(s, broker, key, 'follower');
    if (part.leader !== broker && part.leader >= 0) startFetcher(s, broker, key);
  }
}

function electLeader(s: Sim, topic: string, partition: number, broker: number): void {
  const state = s.state;
  const now = state.nowMs;
  const key = partitionKey(topic, partition);
  const part = state.partitions[key];
  if (!state.brokers[broker].alive || !part.isr.includes(broker)) {
    s.emit({ atMs: now, type: 'timeline', action: 'electLeader', broker, topic, partition, ignored: 'not a live in-sync replica (clean election only)', rule: 'electionRefused' });
    return;
  }
  if (part.leader === broker) return;
  s.emit({ atMs: now, type: 'timeline', action: 'electLeader', broker, topic, partition });
  becomeLeader(s, key, broker, 'electLeader');
}

/**
 * Clean election. With KIP-1176 the elected replica first syncs the tail from the WAL: the
 * partition has no leader until it has applied the chunks it knows of.
 */
export function becomeLeader(s: Sim, key: string, broker: number, rule: Rule): void {
  const state = s.state;
  const part = state.partitions[key];
  const old = part.leader;
  if (walEnabled(state, key) && machineState(s, broker, key, 'walReplica') !== 'inactive') {
    const now = state.nowMs;
    state.wal.tailSync[key] = { broker, rule, previous: old };
    part.leader = -1;
    if (old >= 0 && old !== broker && state.brokers[old].alive) {
      s.deliver(old, key, 'leader', { type: 'leadership.resigned' });
      startReplicaTasks(s, old, key, 'follower');
    }
    part.parked = [];
    state.metrics.wal.tailSyncs++;
    s.emit({ atMs: now, type: 'wal', action: 'syncingTail', broker, topic: part.topic, partition: part.partition, previous: old, logEndOffset: logEndOffset(replica(state, key, broker).log), rule: 'walTailSync' });
    s.deliver(broker, key, 'fetcher', { type: 'fetcher.stopped' });
    s.deliver(broker, key, 'walReplica', { type: 'wal.syncTail' });
    return;
  }
  completeLeadership(s, key, broker, rule, old);
}

/** The WAL tail sync of an election finished: the elected replica now leads. */
export function tailSynced(s: Sim, broker: number, key: string, applied: number, logEndOffsetNow: number): void {
  const state = s.state;
  const sync = state.wal.tailSync[key];
  if (sync === undefined || sync.broker !== broker) return;
  const part = state.partitions[key];
  delete state.wal.tailSync[key];
  s.emit({ atMs: state.nowMs, type: 'wal', action: 'tailSynced', broker, topic: part.topic, partition: part.partition, chunks: applied, logEndOffset: logEndOffsetNow, rule: 'walTailSynced' });
  completeLeadership(s, key, broker, sync.rule, sync.previous);
}

/** The election proper: bump the epoch, the new leader appends (epoch, LEO) to its cache. */
function completeLeadership(s: Sim, key: string, broker: number, rule: Rule, old: number): void {
  const state = s.state;
  const now = state.nowMs;
  const part = state.partitions[key];
  part.leaderEpoch += 1;
  part.leader = broker;
  if (!part.isr.includes(broker)) part.isr = [...part.isr, broker].sort((a, b) => a - b);
  const r = replica(state, key, broker);
  const cache = r.log.leaderEpochs;
  if (latestEpoch(cache) < part.leaderEpoch) assignEpoch(cache, part.leaderEpoch, logEndOffset(r.log));
  // Until its copy task's first run its Log-Start-Offset is what it heard as a follower.
  r.logStartOffsetUnconfirmed = true;
  // Ry stays: as a follower the replica kept its own current from remote metadata (Kafka's
  // RLMFollowerTask), and it only rises. Only a restart forgets it (see crash).
  s.emit({ atMs: now, type: 'leader', topic: part.topic, partition: part.partition, broker, previous: old, leaderEpoch: part.leaderEpoch, rule });
  s.deliver(broker, key, 'fetcher', { type: 'fetcher.stopped' });
  s.deliver(broker, key, 'walReplica', { type: 'wal.stopped' });
  if (walEnabled(state, key)) state.wal.next[key] = logEndOffset(r.log);
  s.deliver(broker, key, 'leader', {
    type: 'leadership.assumed',
    leaderEpoch: part.leaderEpoch,
    isr: part.isr,
    replicas: part.replicas,
    nowMs: now,
    logEndOffset: logEndOffset(r.log),
    minIsr: effectiveMinIsr(state, key),
  });
  startReplicaTasks(s, broker, key, 'leader');
  for (const b of part.replicas) {
    if (b === broker || !state.brokers[b].alive) continue;
    if (b === old) {
      s.deliver(b, key, 'leader', { type: 'leadership.resigned' });
      startReplicaTasks(s, b, key, 'follower');
    }
    // Followers drop WAL chunks of the older epochs before they follow the new leader.
    s.deliver(b, key, 'walReplica', { type: 'wal.leaderEpoch', leaderEpoch: part.leaderEpoch });
    startFetcher(s, b, key);
  }
  // Fetches parked at the old leader are answered by no one: their senders restart anyway.
  part.parked = [];
}
