/**
 * The catch-up scenario of the in-flight checks (test/in-flight-view.test.ts and
 * test/e2e/in-flight.spec.ts): one partition of 48 MiB (16 MiB in remote storage only,
 * 16 MiB both, 16 MiB local, 1 KiB records) and empty followers fetching it over links of
 * `bytesPerSec`. Plain text, no test framework: both runners import it.
 */
const MiB = 1024 * 1024;

export function catchUpScenario(o: { name: string; description: string; followers: number; bytesPerSec: number; until: number; zones?: string[]; kip1023?: boolean }): string {
  const replicas = Array.from({ length: o.followers + 1 }, (_, i) => i).join(', ');
  return `name: ${o.name}
description: ${o.description}
brokers: ${o.followers + 1}
${o.zones ? `zones: [${o.zones.join(', ')}]\n` : ''}${o.kip1023 !== undefined ? `config:\n  follower.fetch.last.tiered.offset.enable: ${o.kip1023}\n` : ''}model:
  brokerNetworkBytesPerSec: ${o.bytesPerSec}
  recordBytes: 1024
topics:
  - name: orders
    partitions: 1
    replicas: [[${replicas}]]
    config:
      remote.storage.enable: true
      segment.bytes: ${16 * MiB}
      remote.log.copy.disable: true
    initial:
      - partition: 0
        segments:
          - { baseOffset: 0, endOffset: 16383, tier: remote }
          - { baseOffset: 16384, endOffset: 32767, tier: both }
          - { baseOffset: 32768, endOffset: 49151, tier: local }
until: ${o.until}
`;
}
