/**
 * `model.jitter` of a scenario (core/domain/jitter.ts; docs/scenario-format.md, "Jitter"):
 * its shape, its integers and its links. A link joins two brokers of the scenario: those of
 * `brokers`, and those the timeline's addBroker events add.
 */
import {
  JITTER_DISTRIBUTION_KEYS,
  JITTER_KEYS,
  JITTER_STORES,
  MAX_JITTER_MS,
  type Jitter,
  type JitterDistribution,
  type JitterStore,
  jitterLinkKey,
} from '../domain/jitter.js';
import { checkInt, checkKeys, describe, expectMap, hasOwn, keyPath, list, q } from './checks.js';
import type { Problems } from './checks.js';

/** The brokers a link may name: `count` from `brokers`, and `added` by the timeline's addBroker events. */
export interface JitterBrokers {
  count: number;
  added: number;
}

/** A link key as written: two broker ids (no sign, no leading zero), a dash between. */
const LINK_RE = /^(0|[1-9][0-9]{0,5})-(0|[1-9][0-9]{0,5})$/;

function validateDistribution(p: Problems, v: unknown, path: string): JitterDistribution | undefined {
  const obj = expectMap(p, v, path, `a jitter distribution, a map of ${list(JITTER_DISTRIBUTION_KEYS)} (integers, each optional, default 0)`);
  if (!obj) return undefined;
  const before = p.count;
  checkKeys(p, obj, path, JITTER_DISTRIBUTION_KEYS, ' of a jitter distribution');
  const int = (key: string, max: number, note: string): number => {
    if (!hasOwn(obj, key) || obj[key] === null) return 0;
    return checkInt(p, obj[key], keyPath(path, key), { min: 0, max, note }) ?? 0;
  };
  const uniformMs = int('uniformMs', MAX_JITTER_MS, '(ms)');
  const tailPercent = int('tailPercent', 100, '(percent)');
  const tailMs = int('tailMs', MAX_JITTER_MS, '(ms)');
  if (p.count > before) return undefined;
  // Half a tail adds nothing: most likely a key left out by mistake.
  if (tailPercent > 0 && tailMs === 0) p.add(keyPath(path, 'tailMs'), `tailPercent ${tailPercent} needs tailMs, the most a tail adds (an integer from 1 to ${MAX_JITTER_MS}, ms); without it the tail adds nothing`);
  if (tailMs > 0 && tailPercent === 0) p.add(keyPath(path, 'tailPercent'), `tailMs ${tailMs} needs tailPercent, how often the tail is added (an integer from 1 to 100, percent); without it the tail is never added`);
  if (p.count > before) return undefined;
  return { uniformMs, tailPercent, tailMs };
}

function validateLinks(p: Problems, v: unknown, path: string, brokers: JitterBrokers | undefined): Record<string, JitterDistribution> | undefined {
  const obj = expectMap(p, v, path, `a map of links between two brokers, keyed "A-B" (broker ids), each a jitter distribution`);
  if (!obj) return undefined;
  const out: Record<string, JitterDistribution> = {};
  const written: Record<string, string> = {};
  for (const key of Object.keys(obj)) {
    const kp = keyPath(path, key);
    const m = LINK_RE.exec(key);
    if (m === null) {
      p.add(kp, `expected a link "A-B" between two brokers (their ids, e.g. "0-1"), got ${describe(key)}`);
      continue;
    }
    const a = Number(m[1]);
    const b = Number(m[2]);
    if (a === b) {
      p.add(kp, `a link joins two different brokers; ${q(key)} names broker ${a} twice`);
      continue;
    }
    if (brokers !== undefined) {
      const last = brokers.count + brokers.added - 1;
      const bad = [a, b].filter((id) => id > last);
      if (bad.length > 0) {
        const which = brokers.added > 0 ? `(brokers: ${brokers.count}, and ${brokers.added} added by addBroker)` : `(brokers: ${brokers.count})`;
        p.add(kp, `no broker ${bad.join(' or ')} in the scenario; a link joins two of the brokers 0 .. ${last} ${which}`);
        continue;
      }
    }
    const canonical = jitterLinkKey(a, b);
    if (written[canonical] !== undefined) {
      p.add(kp, `the link between brokers ${Math.min(a, b)} and ${Math.max(a, b)} is already given as ${q(written[canonical])} (a link is either direction)`);
      continue;
    }
    written[canonical] = key;
    const d = validateDistribution(p, obj[key], kp);
    if (d !== undefined) out[canonical] = d;
  }
  return out;
}

function validateStores(p: Problems, v: unknown, path: string): Partial<Record<JitterStore, JitterDistribution>> | undefined {
  const obj = expectMap(p, v, path, `a map of object stores (${list(JITTER_STORES)}), each a jitter distribution`);
  if (!obj) return undefined;
  const out: Partial<Record<JitterStore, JitterDistribution>> = {};
  for (const key of Object.keys(obj)) {
    const kp = keyPath(path, key);
    if (!(JITTER_STORES as readonly string[]).includes(key)) {
      p.add(kp, `unknown object store ${q(key)}; expected one of ${list(JITTER_STORES)}`);
      continue;
    }
    const d = validateDistribution(p, obj[key], kp);
    if (d !== undefined) out[key as JitterStore] = d;
  }
  return out;
}

/**
 * `model.jitter`: the validated value in fresh objects (links keyed lower id first), or
 * undefined after a problem. `brokers` undefined (not known): link ids are not checked.
 */
export function validateJitter(p: Problems, v: unknown, path: string, brokers: JitterBrokers | undefined): Jitter | undefined {
  const obj = expectMap(p, v, path, `a map of what jitters (${list(JITTER_KEYS)})`);
  if (!obj) return undefined;
  const before = p.count;
  checkKeys(p, obj, path, JITTER_KEYS, ' of model.jitter');
  const out: Jitter = {};
  if (hasOwn(obj, 'network') && obj.network !== null) {
    const d = validateDistribution(p, obj.network, keyPath(path, 'network'));
    if (d !== undefined) out.network = d;
  }
  if (hasOwn(obj, 'links') && obj.links !== null) {
    const links = validateLinks(p, obj.links, keyPath(path, 'links'), brokers);
    if (links !== undefined) out.links = links;
  }
  if (hasOwn(obj, 'stores') && obj.stores !== null) {
    const stores = validateStores(p, obj.stores, keyPath(path, 'stores'));
    if (stores !== undefined) out.stores = stores;
  }
  return p.count > before ? undefined : out;
}
