/**
 * Every effect handler of core/sim/loop/effects.ts names each parameter its effect is sent, so
 * none is silently ignored (a machine adds a parameter; the handler must read it or say why
 * not). Read with the TypeScript checker: for each handler of the seven tables, the names in
 * its fourth parameter's destructuring against the properties of the type the table gives
 * that parameter (`EffectParams` of the machine's declared effect).
 */
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const FILE = resolve(__dirname, '../core/sim/loop/effects.ts');

function handlerNames(): Array<{ table: string; effect: string; declared: string[]; named: string[] | null }> {
  const program = ts.createProgram([FILE], { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(FILE);
  if (source === undefined) throw new Error(`cannot read ${FILE}`);
  const out: Array<{ table: string; effect: string; declared: string[]; named: string[] | null }> = [];
  ts.forEachChild(source, (node) => {
    if (!ts.isVariableStatement(node)) return;
    for (const d of node.declarationList.declarations) {
      if (d.type === undefined || !ts.isTypeReferenceNode(d.type) || d.type.typeName.getText(source) !== 'Handlers') continue;
      if (d.initializer === undefined || !ts.isObjectLiteralExpression(d.initializer)) continue;
      const table = d.name.getText(source);
      for (const prop of d.initializer.properties) {
        if (!ts.isPropertyAssignment(prop) || !ts.isArrowFunction(prop.initializer)) continue;
        const effect = prop.name.getText(source);
        const fn = prop.initializer;
        // The type the table gives the handler: its fourth parameter's type.
        const contextual = checker.getContextualType(fn);
        const signature = contextual?.getCallSignatures()[0];
        const paramSymbol = signature?.parameters[3];
        const declared = paramSymbol === undefined ? [] : checker.getTypeOfSymbol(paramSymbol).getProperties().map((p) => p.name).sort();
        const p = fn.parameters[3];
        let named: string[] | null = [];
        if (p === undefined) named = [];
        else if (ts.isObjectBindingPattern(p.name)) {
          named = p.name.elements.map((e) => (e.propertyName ?? e.name).getText(source)).sort();
          if (p.name.elements.some((e) => e.dotDotDotToken !== undefined)) named = null;
        } else named = null;
        out.push({ table, effect, declared, named });
      }
    }
  });
  return out;
}

describe('effect handlers (core/sim/loop/effects.ts)', () => {
  const handlers = handlerNames();

  it('finds the seven tables (one per machine) and their handlers', () => {
    expect(new Set(handlers.map((h) => h.table))).toEqual(new Set(['fetcher', 'leader', 'rlm', 'rlmExpiration', 'logRetention', 'walCombiner', 'walReplica']));
    expect(handlers.length).toBeGreaterThan(40);
    // The checker saw the declared params (a handler with params has some).
    expect(handlers.filter((h) => h.declared.length > 0).length).toBeGreaterThan(35);
  });

  it('each handler destructures exactly the params its effect declares (no rest element, none left out)', () => {
    const wrong = handlers
      .filter((h) => h.named === null || h.named.join(',') !== h.declared.join(','))
      .map((h) => `${h.table}.${h.effect}: declares [${h.declared.join(', ')}], handler names ${h.named === null ? 'a rest element or a whole object' : `[${h.named.join(', ')}]`}`);
    expect(wrong).toEqual([]);
  });
});
