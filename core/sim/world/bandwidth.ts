/**
 * Network bandwidth (docs/protocol.md §10): a message that carries bytes takes time in
 * proportion to them. Each broker has one network interface of `model.brokerNetworkBytesPerSec`
 * each way (out and in are separate, as on a full-duplex NIC); every transfer crosses the
 * sender's "out" and the receiver's "in" (a client end has no limit of its own), and the
 * transfers on an interface at the same moment share it max-min fairly (progressive
 * filling: each transfer gets an equal share of its tightest interface, and what a transfer
 * bottlenecked elsewhere leaves goes to the others). A transfer's rates change whenever a
 * transfer starts or ends; its end is rescheduled then.
 *
 * The message then arrives one hop's latency after its last byte left (`deliver` at the
 * transfer's end plus the hop). A message too small to take a microsecond alone (requests,
 * empty Fetch responses, ListOffsets answers) is not a transfer: it is scheduled after its
 * hop as before, and takes no share of an interface. `brokerNetworkBytesPerSec: 0` turns
 * the model off (every message is latency only).
 *
 * Time: a transfer's end is rounded to the microsecond (the kernel's clock is in ms, and
 * ends of transfers are the only times that are not whole milliseconds). Rates are IEEE
 * doubles; ECMAScript specifies + - * / exactly (round to nearest), so every engine
 * computes the same ends. The state is plain data (`KernelState.net`): checkpoints and the
 * exhaustive checker's state key include the transfers in flight.
 *
 * Not modelled: produce traffic (a producer's batches reach the leader's log at once; their
 * bytes are not on the leader's "in"), a broker's traffic to the object stores (a store
 * request has its own per-request throughput, core/sim/world/store.ts), TCP slow start and
 * per-connection windows.
 */
import type { ModelKnobs } from '../../domain/config.js';
import type { Sim } from '../state/context.js';
import { type Queued, remove } from '../state/event-queue.js';
import type { KernelEvent, Message, NetState, Transfer } from '../state/state.js';
import { formatRate } from '../../util/format.js';

/** The rate formatters live in core/util/format.ts (the scenario layer prints rates too); named here as before. */
export { formatRate, formatRateShort } from '../../util/format.js';

export function newNetState(): NetState {
  return { transfers: [], nextTransferId: 1 };
}

/** The interface capacity of one broker, one way, in bytes per ms (0: unlimited). */
export function nicBytesPerMs(s: Sim): number {
  return s.state.model.brokerNetworkBytesPerSec / 1000;
}

/** Rounds a time in ms up to the next whole microsecond (never below `floorMs`). */
function toMicros(ms: number, floorMs: number): number {
  const us = Math.ceil(ms * 1000 - 1e-6);
  const t = us / 1000;
  return t < floorMs ? floorMs : t;
}

/**
 * Sends a message of `bytes`: it arrives `afterMs` after its last byte left. Called where a
 * message is scheduled (core/sim/world/network.ts, core/sim/world/clients.ts), once per message.
 */
export function transmit(s: Sim, msg: Message, bytes: number, afterMs: number): void {
  const state = s.state;
  const cap = nicBytesPerMs(s);
  const now = state.nowMs;
  // Latency only: no limit, or less than half a microsecond alone on an idle interface.
  if (cap <= 0 || bytes * 2000 < cap) {
    s.schedule(now + afterMs, { kind: 'deliver', msg });
    return;
  }
  const from = typeof msg.source === 'number' ? msg.source : null;
  const to = typeof msg.target === 'number' ? msg.target : null;
  const t: Transfer = { id: state.net.nextTransferId++, from, to, bytes, remaining: bytes, rate: 0, updatedMs: now, endMs: Number.POSITIVE_INFINITY, msg, afterMs, startedMs: now };
  state.net.transfers.push(t);
  reshare(s);
  // A transfer of at least a millisecond alone is a step of its own on the page and in the
  // narration (shorter ones are within the trace's whole-ms times: they show as the response).
  if (bytes >= cap) {
    let sharing = 0;
    for (const o of state.net.transfers) if ((from !== null && o.from === from) || (to !== null && o.to === to)) sharing++;
    const part = state.partitions[msg.key];
    s.emit({
      atMs: now, type: 'transfer', api: msg.api, source: msg.source, target: msg.target, topic: part.topic, partition: part.partition,
      correlationId: msg.correlationId, bytes, bytesPerSec: Math.round(t.rate * 1000), sharing, dueMs: Math.round(t.endMs * 1000) / 1000, rule: 'transferStarted',
    });
  }
}

/** A transfer's last byte has left: it frees its share, and its message arrives after the hop. */
export function onTransferDone(s: Sim, id: number): void {
  const net = s.state.net;
  const i = net.transfers.findIndex((t) => t.id === id);
  if (i < 0) return;
  const t = net.transfers[i];
  net.transfers.splice(i, 1);
  s.schedule(s.state.nowMs + t.afterMs, { kind: 'deliver', msg: t.msg });
  reshare(s);
}

/**
 * Shares the interfaces out again (max-min fair, by progressive filling) and moves the end
 * of every transfer whose rate changed. Deterministic: interfaces and transfers are visited
 * in a fixed order (interface name, transfer id).
 */
function reshare(s: Sim): void {
  const state = s.state;
  const now = state.nowMs;
  const transfers = state.net.transfers;
  const cap = nicBytesPerMs(s);
  // Bring every transfer's remaining bytes up to now at its old rate.
  for (const t of transfers) {
    if (t.updatedMs < now) {
      t.remaining = Math.max(0, t.remaining - t.rate * (now - t.updatedMs));
      t.updatedMs = now;
    }
  }
  const rates = shareOut(transfers, cap);
  for (let i = 0; i < transfers.length; i++) {
    const t = transfers[i];
    const rate = rates[i];
    if (rate === t.rate && t.endMs !== Number.POSITIVE_INFINITY) continue;
    t.rate = rate;
    const end = toMicros(now + t.remaining / rate, now);
    if (end === t.endMs) continue;
    if (t.endMs !== Number.POSITIVE_INFINITY) unschedule(s, t.id);
    t.endMs = end;
    s.schedule(end, { kind: 'transferDone', transferId: t.id });
  }
}

/** Takes a transfer's queued end out of the queue (its rate changed). */
function unschedule(s: Sim, id: number): void {
  const heap = s.state.queue.heap;
  for (const q of heap) {
    if (q.ev.kind === 'transferDone' && q.ev.transferId === id) {
      remove(s.state.queue, q as Queued<KernelEvent>);
      return;
    }
  }
}

/** The interfaces a transfer crosses, named `out:B` and `in:B`. */
function interfacesOf(t: Pick<Transfer, 'from' | 'to'>): string[] {
  const out: string[] = [];
  if (t.from !== null) out.push(`out:${t.from}`);
  if (t.to !== null) out.push(`in:${t.to}`);
  return out;
}

/**
 * Max-min fair rates (bytes per ms) of transfers over interfaces of capacity `cap` each:
 * repeatedly, the interface whose unfixed transfers would get the smallest equal share
 * fixes them at that share, and its capacity leaves the others' interfaces too.
 */
export function shareOut(transfers: ReadonlyArray<Pick<Transfer, 'from' | 'to'>>, cap: number): number[] {
  if (transfers.length === 1) return [cap];
  const rates = new Array<number>(transfers.length).fill(0);
  const fixed = new Array<boolean>(transfers.length).fill(false);
  const left = new Map<string, number>();
  const users = new Map<string, number[]>();
  transfers.forEach((t, i) => {
    for (const n of interfacesOf(t)) {
      if (!users.has(n)) {
        users.set(n, []);
        left.set(n, cap);
      }
      users.get(n)!.push(i);
    }
  });
  const names = [...users.keys()].sort();
  let unfixed = transfers.length;
  while (unfixed > 0) {
    let best: string | null = null;
    let bestShare = Number.POSITIVE_INFINITY;
    for (const n of names) {
      const open = users.get(n)!.filter((i) => !fixed[i]).length;
      if (open === 0) continue;
      const share = left.get(n)! / open;
      if (share < bestShare) {
        bestShare = share;
        best = n;
      }
    }
    if (best === null) break;
    for (const i of users.get(best)!) {
      if (fixed[i]) continue;
      fixed[i] = true;
      unfixed--;
      rates[i] = bestShare;
      for (const n of interfacesOf(transfers[i])) left.set(n, Math.max(0, left.get(n)! - bestShare));
    }
  }
  return rates;
}

/**
 * A transfer's bytes not yet sent at `nowMs`: its `remaining` at its last share-out less what
 * its rate has carried since, at least 0. (The state brings `remaining` up to date only when
 * the shares change; a picture between two share-outs needs it at its own moment.)
 */
export function bytesLeftAt(t: Pick<Transfer, 'remaining' | 'rate' | 'updatedMs'>, nowMs: number): number {
  return nowMs > t.updatedMs ? Math.max(0, t.remaining - t.rate * (nowMs - t.updatedMs)) : t.remaining;
}

/** Bytes in flight at `nowMs` and their summed rate (bytes per ms) on one broker's interface, for the page. */
export function interfaceLoad(net: NetState, broker: number, way: 'out' | 'in', nowMs: number): { transfers: number; bytesLeft: number; bytesPerMs: number } {
  let n = 0;
  let left = 0;
  let rate = 0;
  for (const t of net.transfers) {
    if ((way === 'out' ? t.from : t.to) !== broker) continue;
    n++;
    left += bytesLeftAt(t, nowMs);
    rate += t.rate;
  }
  return { transfers: n, bytesLeft: left, bytesPerMs: rate };
}

/**
 * What a run's times and bytes assumed of the network and the stores, in one line: printed
 * beside every catch-up time (CLI summary, reports), so a figure is never quoted without it.
 */
export function describeNetwork(model: Pick<ModelKnobs, 'brokerNetworkBytesPerSec' | 'sameZoneLatencyMs' | 'crossZoneLatencyMs' | 'tieredGetLatencyMs' | 'tieredGetBytesPerMs' | 'tieredPutLatencyMs' | 'tieredPutBytesPerMs'>, fetchMaxBytes: number): string {
  const nic = model.brokerNetworkBytesPerSec > 0 ? `each broker's network ${formatRate(model.brokerNetworkBytesPerSec)} each way, shared fairly` : 'no network bandwidth limit (latency only)';
  return (
    `${nic}; latency ${model.sameZoneLatencyMs} ms within a zone, ${model.crossZoneLatencyMs} ms across; ` +
    `replica.fetch.max.bytes ${fetchMaxBytes}; tiered store GET ${model.tieredGetLatencyMs} ms + ${formatRate(model.tieredGetBytesPerMs * 1000)}, ` +
    `PUT ${model.tieredPutLatencyMs} ms + ${formatRate(model.tieredPutBytesPerMs * 1000)} per request`
  );
}

/**
 * A broker crashed or was cut off: the transfers it sends or receives stop where they are.
 * The requester of each sees the connection fail one hop later, as a network error, as it
 * would when the bytes never finish arriving; unless the requester is the broker that
 * crashed (its connections went with it). A broker cut off by a network partition is alive
 * and waiting for its answers: it hears of the failure, backs off and fetches again, as it
 * does when an answer sent without bandwidth arrives across the partition (`severed`).
 */
export function cutTransfers(s: Sim, broker: number, rule: 'brokerUnreachable' | 'networkPartition'): void {
  const net = s.state.net;
  const cut = net.transfers.filter((t) => t.from === broker || t.to === broker);
  if (cut.length === 0) return;
  net.transfers = net.transfers.filter((t) => t.from !== broker && t.to !== broker);
  for (const t of cut) {
    unschedule(s, t.id);
    if (t.to === broker && rule === 'brokerUnreachable') continue;
    const failed = { ...t.msg, body: { error: 'NETWORK_EXCEPTION', rule } } as Message;
    s.schedule(s.state.nowMs + t.afterMs, { kind: 'deliver', msg: failed });
  }
  reshare(s);
}
