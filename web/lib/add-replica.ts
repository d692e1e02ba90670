/**
 * The Conditions panel's "Add" row, as data: the brokers that can become a new, empty replica
 * of the partition shown (every broker that is not one of its replicas, and a new broker added
 * to the cluster first), the actions a choice records, and in words what a choice does or why
 * it cannot be taken. Pure, so it is tested like the layout helpers; the row only draws it.
 */
import { MAX_BROKERS } from '../../core/scenario/checks.js';
import { brokerZone, type InputProblem, type Scenario, type TimelineAction } from '../../core/scenario/types.js';
import type { PartitionView, RunView } from '../../core/session/view.js';

export interface AddChoice {
  /** The select's value: `broker-N` (a broker of the cluster) or `new-N` (a new broker N). */
  value: string;
  label: string;
  broker: number;
  /** A new broker: addBroker first, then addReplica. */
  added: boolean;
  alive: boolean;
  zone: string;
}

export interface AddRow {
  /** Brokers of the cluster first, in id order, then the new broker; the first is the default. */
  choices: AddChoice[];
  /** Why no new broker is offered (null when one is). */
  noNewBroker: string | null;
}

/** What the row offers for `partition` in the cluster of `view`. */
export function addReplicaChoices(view: RunView, partition: PartitionView, scenario: Scenario): AddRow {
  const replicas = new Set(partition.replicas.map((r) => r.broker));
  const choices: AddChoice[] = view.brokers
    .filter((b) => !replicas.has(b.id))
    .map((b) => ({ value: `broker-${b.id}`, label: `broker ${b.id}${b.alive ? '' : ' (down)'}`, broker: b.id, added: false, alive: b.alive, zone: b.zone }));
  const next = view.brokers.length;
  // Brokers the scenario's own timeline adds take the next ids when they start; a new broker
  // from the page waits until they have (a link then reads back the same ids).
  const scenarioAdds = scenario.timeline.filter((e) => e.action.kind === 'addBroker').length;
  let noNewBroker: string | null = null;
  if (next >= MAX_BROKERS) noNewBroker = `The cluster has ${MAX_BROKERS} brokers, the most a scenario may have, so no new broker can be added.`;
  else if (next < scenario.brokers + scenarioAdds) noNewBroker = `The scenario adds broker ${next} later (its timeline); a new broker can be added after that.`;
  if (noNewBroker === null) {
    choices.push({ value: `new-${next}`, label: `a new broker ${next} (added to the cluster)`, broker: next, added: true, alive: true, zone: brokerZone(scenario, next) });
  }
  return { choices, noNewBroker };
}

/** The choice with this value, or the default (the first) when there is none such. */
export function pickChoice(row: AddRow, value: string | null): AddChoice | null {
  return row.choices.find((c) => c.value === value) ?? row.choices[0] ?? null;
}

/** The actions a choice records, in order: a new broker joins the cluster, then the partition. */
export function addActions(choice: AddChoice, partition: PartitionView): TimelineAction[] {
  const add: TimelineAction = { kind: 'addReplica', topic: partition.topic, partition: partition.partition, broker: choice.broker };
  return choice.added ? [{ kind: 'addBroker', broker: choice.broker }, add] : [add];
}

/**
 * What taking a choice does, in words, when it is not the plain case (a live broker starts
 * fetching from the leader at once), or why it cannot be taken. `blocked` disables the button.
 */
export function addNote(
  choice: AddChoice | null,
  row: AddRow,
  partition: PartitionView,
  done: boolean,
  budget: readonly InputProblem[],
): { text: string; blocked: boolean } | null {
  if (choice === null) return { text: `Every broker is a replica of ${partition.key}. ${row.noNewBroker ?? ''}`.trim(), blocked: true };
  if (budget.length > 0) return { text: `Not possible: ${budget[0].message}`, blocked: true };
  const parts: string[] = [];
  if (choice.added) parts.push(`Broker ${choice.broker} starts in zone ${choice.zone} and registers with the controller, then joins ${partition.key} as an empty replica (two actions in the link).`);
  if (!choice.alive) parts.push(`Broker ${choice.broker} is down: it becomes a replica now and fetches once it restarts.`);
  if (partition.leader < 0) parts.push(`${partition.key} has no leader: the new replica fetches once one is elected.`);
  if (done) parts.push('The run is at its end (until): the replica is added, but has no time left to fetch.');
  return parts.length === 0 ? null : { text: parts.join(' '), blocked: false };
}
