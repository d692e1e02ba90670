/** The bundled scenarios, read at build time so the static site works offline. */
const files = import.meta.glob('../../scenarios/*.yaml', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

export interface BundledScenario {
  /** File name without extension: the `?scenario=` value. */
  id: string;
  text: string;
}

export const BUNDLED: BundledScenario[] = Object.entries(files)
  .map(([path, text]) => ({ id: path.replace(/^.*\//, '').replace(/\.yaml$/, ''), text }))
  .sort((a, b) => a.id.localeCompare(b.id));

export const DEFAULT_SCENARIO = 'kip1023-bootstrap';
