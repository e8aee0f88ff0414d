/**
 * No import circle anywhere in the repository: a module never reaches itself through its imports, type-only
 * and dynamic ones included. A circle hides which of two modules is the lower one (the layers of
 * eslint.config.js hold between folders; this holds inside them too), and a runtime circle leaves one of its
 * modules half-loaded while the other starts.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SKIPPED = new Set(['node_modules', 'dist', 'coverage', '.git', '.data']);

/** Every TypeScript file of the repository, relative to its root. */
function sources(): string[] {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !SKIPPED.has(entry.name) && !entry.name.startsWith('.'))
    .flatMap((entry) =>
      readdirSync(join(ROOT, entry.name), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts') && !file.split('/').includes('node_modules'))
        .map((file) => join(entry.name, file)),
    );
}

/** Each file's imports of other files of the repository (`./x.js` read as `./x.ts`). */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(ROOT, resolve(ROOT, dirname(file), name.replace(/\.js$/, '.ts'))))
      .filter((target) => existsSync(join(ROOT, target)));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The graph's circles: its strongly connected components of more than one file, or of a file importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('imports', function () {
  it('form no circle in any folder of the repository', function () {
    const graph = importGraph(sources());
    assert.ok(graph.size > 300, `only ${graph.size} files found`);
    assert.ok(
      [...graph.values()].reduce((sum, targets) => sum + targets.length, 0) > 1000,
      'the imports were not read',
    );
    // Each entry: the files of one circle, each reaching the others through their imports.
    assert.deepEqual(
      circles(graph).map((circle) => circle.join(', ')),
      [],
    );
  });

  it('would name a circle, and a file that imports itself', function () {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    assert.deepEqual(circles(graph), [['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });
});
