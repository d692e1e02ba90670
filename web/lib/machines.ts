/** The state tree of a machine definition, flattened for drawing (no layout engine). */
export interface StateRow {
  key: string;
  /** Dot path as the kernel reports it, e.g. `kip1023.awaitingEarliestOffset`. */
  path: string;
  depth: number;
}

interface NodeLike {
  key: string;
  states: Record<string, NodeLike>;
}

export function stateTree(root: NodeLike): StateRow[] {
  const out: StateRow[] = [];
  const walk = (node: NodeLike, prefix: string, depth: number) => {
    for (const child of Object.values(node.states)) {
      const path = prefix ? `${prefix}.${child.key}` : child.key;
      out.push({ key: child.key, path, depth });
      walk(child, path, depth + 1);
    }
  };
  walk(root, '', 0);
  return out;
}
