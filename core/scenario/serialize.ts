/**
 * A validated scenario back to the file format (docs/scenario-format.md), so a generated
 * one (a swarm run's scenario with its fault schedule) can be saved, run with `run`, and
 * opened in the walkthrough. `parseScenarioText(JSON.stringify(toScenarioFile(s)))` gives
 * `s` again.
 */
import type { Scenario, TimelineAction } from './types.js';

function actionBody(a: TimelineAction): [string, Record<string, unknown>] {
  switch (a.kind) {
    case 'setConfig':
      return ['setConfig', { ...a.values, ...(a.topic !== undefined ? { topic: a.topic } : {}) }];
    default: {
      const { kind, ...rest } = a;
      return [kind, rest];
    }
  }
}

export function toScenarioFile(s: Scenario): Record<string, unknown> {
  return {
    name: s.name,
    ...(s.description ? { description: s.description } : {}),
    seed: s.seed,
    brokers: s.brokers,
    ...(s.zones.length > 0 ? { zones: s.zones } : {}),
    ...(Object.keys(s.config).length > 0 ? { config: s.config } : {}),
    ...(Object.keys(s.model).length > 0 ? { model: s.model } : {}),
    ...(s.prices !== undefined ? { prices: s.prices } : {}),
    topics: s.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions,
      replicas: t.replicas,
      ...(Object.keys(t.config).length > 0 ? { config: t.config } : {}),
      ...(t.initial.length > 0
        ? {
            initial: t.initial.map((i) => ({
              partition: i.partition,
              leaderEpoch: i.leaderEpoch,
              leaderEpochs: i.leaderEpochs,
              segments: i.segments,
              ...(i.highestOffsetInRemoteStorage !== undefined ? { highestOffsetInRemoteStorage: i.highestOffsetInRemoteStorage } : {}),
              remoteLogMetadataReadyMs: i.remoteLogMetadataReadyMs,
              ...(i.followersInSync === true ? { followersInSync: true } : {}),
            })),
          }
        : {}),
    })),
    ...(s.timeline.length > 0
      ? {
          timeline: s.timeline.map((e) => {
            const [k, body] = actionBody(e.action);
            return { at: e.at, [k]: body };
          }),
        }
      : {}),
    until: s.until,
    ...(s.choices !== undefined && s.choices.length > 0 ? { choices: s.choices } : {}),
  };
}
