/**
 * Lays out a machine's graph (statechart-graph.ts) with ELK's layered algorithm (elkjs, pure
 * JavaScript), hierarchically (INCLUDE_CHILDREN): each state a box, a compound state's
 * children boxes inside it, each transition with a target an arrow with its label (event
 * and guard). A transition without a target (actions only, or a stale event dropped) is an
 * internal transition: a row inside its state's box, as UML statecharts write them. A
 * transition from a compound state into its own children starts at a small "any" node
 * inside it (ELK lays out edges between boxes, not from a box into itself).
 *
 * Coordinates come back absolute (`elk.json.shapeCoords` / `edgeCoords` = ROOT).
 * Only the statechart view imports this, so elkjs loads with the view.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { ChartTransition, MachineGraph } from './statechart-graph.js';

export const FONT = 11;
export const ROW = 14;
const CHAR = 6.3;
const HEADER = 22;

export interface BoxLayout {
  path: string;
  key: string;
  x: number;
  y: number;
  width: number;
  height: number;
  compound: boolean;
  depth: number;
  /** Internal transitions, drawn as rows from `rowsY`. */
  internal: ChartTransition[];
  rowsY: number;
}

export interface EdgeLayout {
  transition: ChartTransition;
  /** SVG path of the arrow. */
  d: string;
  label: string;
  lines: string[];
  labelX: number;
  labelY: number;
  labelWidth: number;
  /** The arrow goes to the state the transition targets (several targets: one arrow each, same id). */
  target: string;
}

export interface AnyNodeLayout {
  /** The compound state whose own transitions start here. */
  path: string;
  x: number;
  y: number;
  size: number;
}

export interface InitialLayout {
  /** The compound state; the arrow points at its initial child. */
  path: string;
  d: string;
  x: number;
  y: number;
}

export interface ChartLayout {
  width: number;
  height: number;
  boxes: BoxLayout[];
  edges: EdgeLayout[];
  anyNodes: AnyNodeLayout[];
  initials: InitialLayout[];
}

/** `event [guard]`, the label of an arrow or a row. */
export function transitionLabel(t: ChartTransition): string {
  const ev = t.eventless ? 'always' : t.event;
  return t.guard ? `${ev} [${t.guard}]` : ev;
}

const textWidth = (s: string, size = FONT) => Math.ceil(s.length * CHAR * (size / FONT)) + 8;

/** An arrow's label in lines: the event, then the guard in brackets, broken at `&&` / `||` when long. */
export function labelLines(t: ChartTransition, max = 34): string[] {
  const lines = [t.eventless ? 'always' : t.event];
  if (t.guard === null) return lines;
  const parts = t.guard.split(/ (?=&& |\|\| )/);
  let line = '[';
  for (const p of parts) {
    if (line.length > 1 && line.length + p.length > max) {
      lines.push(line);
      line = '';
    }
    line += (line === '' || line === '[' ? '' : ' ') + p;
  }
  lines.push(`${line}]`);
  return lines;
}

const nodeId = (path: string) => `s:${path}`;
const anyId = (path: string) => `any:${path}`;
const initId = (path: string) => `init:${path}`;

const isInside = (path: string, ancestor: string) => ancestor === '' || path === ancestor || path.startsWith(`${ancestor}.`);

let elk: InstanceType<typeof ELK> | null = null;

export async function layoutMachine(g: MachineGraph): Promise<ChartLayout> {
  elk ??= new ELK();
  const internal = new Map<string, ChartTransition[]>();
  for (const t of g.transitions) {
    if (t.targets.length > 0) continue;
    const list = internal.get(t.source) ?? [];
    list.push(t);
    internal.set(t.source, list);
  }
  const rowsOf = (path: string) => internal.get(path) ?? [];
  const rowsWidth = (path: string) => Math.max(0, ...rowsOf(path).map((t) => textWidth(`↺ ${transitionLabel(t)}${t.actions.length ? ' / …' : ''}`, FONT - 1)));
  const needsAny = new Set(g.transitions.filter((t) => t.targets.some((x) => x !== t.source && isInside(x, t.source))).map((t) => t.source));

  const nodes = new Map<string, ElkNode>();
  for (const s of g.states) {
    const rows = rowsOf(s.path).length;
    const title = textWidth(s.key, FONT + 1);
    const n: ElkNode = { id: nodeId(s.path), labels: [{ text: s.key }] };
    if (s.compound) {
      n.children = [];
      n.layoutOptions = {
        'elk.padding': `[top=${HEADER + rows * ROW + 6},left=12,bottom=12,right=12]`,
        'elk.nodeSize.constraints': 'MINIMUM_SIZE',
        'elk.nodeSize.minimum': `(${Math.max(title, rowsWidth(s.path)) + 24}, ${HEADER + rows * ROW + 30})`,
      };
    } else {
      n.width = Math.max(70, title + 16, rowsWidth(s.path) + 12);
      n.height = HEADER + rows * ROW + (rows > 0 ? 6 : 4);
    }
    nodes.set(s.path, n);
  }
  const root = nodes.get('')!;
  for (const s of g.states) {
    if (s.parent === null) continue;
    nodes.get(s.parent)!.children!.push(nodes.get(s.path)!);
  }
  for (const s of g.states) {
    if (!s.compound) continue;
    const n = nodes.get(s.path)!;
    if (s.initial !== null) n.children!.unshift({ id: initId(s.path), width: 10, height: 10 });
    if (needsAny.has(s.path)) n.children!.unshift({ id: anyId(s.path), width: 26, height: 18 });
  }
  const edges: ElkExtendedEdge[] = [];
  const edgeInfo = new Map<string, { t: ChartTransition; target: string }>();
  for (const t of g.transitions) {
    t.targets.forEach((target, i) => {
      const id = `e${edges.length}`;
      const into = target !== t.source && isInside(target, t.source);
      const label = transitionLabel(t);
      const lines = labelLines(t);
      edges.push({
        id,
        sources: [into ? anyId(t.source) : nodeId(t.source)],
        targets: [nodeId(target)],
        labels: [{ id: `${id}:l`, text: label, width: Math.max(...lines.map((l) => textWidth(l, FONT - 1))), height: ROW * lines.length }],
      });
      edgeInfo.set(id, { t, target });
      void i;
    });
  }
  for (const s of g.states) {
    if (s.compound && s.initial !== null) edges.push({ id: `init:${s.path}`, sources: [initId(s.path)], targets: [nodeId(s.initial)] });
  }
  const graph: ElkNode = {
    id: 'graph',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.layered.spacing.nodeNodeBetweenLayers': '36',
      'elk.spacing.nodeNode': '24',
      'elk.spacing.edgeLabel': '2',
      'elk.spacing.edgeNode': '14',
      'elk.spacing.edgeEdge': '10',
      'elk.layered.spacing.edgeNodeBetweenLayers': '14',
      'elk.edgeLabels.placement': 'CENTER',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
      'elk.json.shapeCoords': 'ROOT',
      'elk.json.edgeCoords': 'ROOT',
      'elk.padding': '[top=8,left=8,bottom=8,right=8]',
    },
    children: [root],
    edges,
  };
  const out = await elk.layout(graph);

  const boxes: BoxLayout[] = [];
  const anyNodes: AnyNodeLayout[] = [];
  const pos = new Map<string, ElkNode>();
  const walk = (n: ElkNode) => {
    pos.set(n.id, n);
    for (const c of n.children ?? []) walk(c);
  };
  walk(out);
  for (const s of g.states) {
    const n = pos.get(nodeId(s.path))!;
    boxes.push({
      path: s.path,
      key: s.key,
      x: n.x ?? 0,
      y: n.y ?? 0,
      width: n.width ?? 0,
      height: n.height ?? 0,
      compound: s.compound,
      depth: s.depth,
      internal: rowsOf(s.path),
      rowsY: (n.y ?? 0) + HEADER,
    });
    if (needsAny.has(s.path)) {
      const a = pos.get(anyId(s.path))!;
      anyNodes.push({ path: s.path, x: a.x ?? 0, y: a.y ?? 0, size: a.width ?? 26 });
    }
  }
  const pathD = (e: ElkExtendedEdge) =>
    (e.sections ?? [])
      .map((sec) => [sec.startPoint, ...(sec.bendPoints ?? []), sec.endPoint].map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' '))
      .join(' ');
  const edgesOut: EdgeLayout[] = [];
  const initials: InitialLayout[] = [];
  for (const e of out.edges ?? []) {
    if (e.id.startsWith('init:')) {
      const path = e.id.slice(5);
      const n = pos.get(initId(path))!;
      initials.push({ path, d: pathD(e as ElkExtendedEdge), x: (n.x ?? 0) + 5, y: (n.y ?? 0) + 5 });
      continue;
    }
    const info = edgeInfo.get(e.id)!;
    const l = e.labels?.[0];
    edgesOut.push({
      transition: info.t,
      d: pathD(e as ElkExtendedEdge),
      label: l?.text ?? '',
      lines: labelLines(info.t),
      labelX: l?.x ?? 0,
      labelY: l?.y ?? 0,
      labelWidth: l?.width ?? 0,
      target: info.target,
    });
  }
  return { width: out.width ?? 0, height: out.height ?? 0, boxes, edges: edgesOut, anyNodes, initials };
}
