/**
 * The builders' assumption lines ("cluster    3 brokers ..."), as the CLI prints them, split
 * into a term and its text for a definition list ("Your partition", "From your cluster").
 */
export function splitAssumption(line: string): [string, string] {
  const m = /^(\w+)\s+(.*)$/.exec(line);
  return m ? [m[1], m[2]] : ['', line];
}
