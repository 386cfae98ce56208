// The server's house rules (shared/DESIGN.md §2), checked on the source: business rules and
// infrastructure never reach up into the HTTP surfaces or use-cases/, the route layers (v1/,
// site/, actions/) do not import each other, use-cases/ imports none of them,
// contract/ imports nothing of ours, no folder cycles, and no SQL in the route layers. Dynamic
// import() counts like a static one. KNOWN lists what is still to be moved (issue 14); the list
// may only shrink: an entry that no longer occurs fails too, so it is removed with its fix.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { folderCycles, importsOf, violation, type ImportEdge } from '../../scripts/arch-metrics.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

const KNOWN_IMPORTS = new Set<string>([]);
const KNOWN_SQL = new Set<string>([]);

const files = [...sources('server'), ...sources('contract')];
const edges = files.flatMap(importsOf);
const SQL = /\.(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`/;

describe('server architecture', () => {
  it('finds the sources and their imports', () => {
    expect(files).toContain(path.join('server', 'app.ts'));
    expect(edges.length).toBeGreaterThan(300);
  });

  it('no import crosses the layering rules, beyond the known ones', () => {
    const found = edges.filter((e) => violation(e)).map((e) => `${e.from} -> ${e.to}`);
    expect(found.filter((e) => !KNOWN_IMPORTS.has(e))).toEqual([]);
    expect(
      [...KNOWN_IMPORTS].filter((e) => !found.includes(e)),
      'fixed: remove from KNOWN_IMPORTS',
    ).toEqual([]);
  });

  it('has no import cycle between folders', () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  it('keeps SQL out of v1/, site/, the widget actions and the leader console, beyond the known files', () => {
    const found = files.filter(
      (f) =>
        /^server[\\/](v1|site|actions|admin)[\\/]/.test(f) && SQL.test(fs.readFileSync(path.join(ROOT, f), 'utf8')),
    );
    expect(found.filter((f) => !KNOWN_SQL.has(f))).toEqual([]);
    expect(
      [...KNOWN_SQL].filter((f) => !found.includes(f)),
      'fixed: remove from KNOWN_SQL',
    ).toEqual([]);
  });

  it('the rules catch what they are for, static and dynamic', () => {
    const edge = (from: string, to: string, dynamic = false): ImportEdge => ({ from, to, typeOnly: false, dynamic });
    expect(violation(edge('server/site/x.ts', 'server/v1/y.ts', true))).toBe('site imports v1');
    expect(violation(edge('server/domain/x.ts', 'server/http/y.ts'))).toMatch(/reaches up/);
    expect(violation(edge('contract/x.ts', 'server/y.ts'))).toMatch(/contract/);
    expect(violation(edge('server/v1/x.ts', 'server/domain/y.ts'))).toBeNull();
    expect(violation(edge('server/actions/x.ts', 'server/v1/y.ts'))).toBe('actions imports v1');
    expect(violation(edge('server/actions/x.ts', 'server/site/y.ts'))).toBe('actions imports site');
    expect(violation(edge('server/v1/x.ts', 'server/actions/y.ts'))).toBe('v1 imports actions');
    expect(violation(edge('server/site/x.ts', 'server/actions/y.ts', true))).toBe('site imports actions');
    expect(violation(edge('server/use-cases/x.ts', 'server/v1/y.ts'))).toMatch(/use-cases imports/);
    expect(violation(edge('server/domain/x.ts', 'server/use-cases/y.ts'))).toMatch(/reaches up/);
    expect(violation(edge('server/actions/x.ts', 'server/use-cases/y.ts'))).toBeNull();
    expect(violation(edge('server/v1/x.ts', 'server/use-cases/y.ts'))).toBeNull();
    expect(
      folderCycles([edge('server/mail/a.ts', 'server/config.ts'), edge('server/config.ts', 'server/mail/b.ts')]),
    ).toHaveLength(1);
  });
});
