// The bundle's house rules, checked on the source: widgets and the loader never import server
// code, and take only types from contract/ (its zod schemas would add 90+ KB to every page).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/gm;

describe('widget bundle boundaries', () => {
  const files = [...sources('widgets'), ...sources('loader')];

  it('finds the sources', () => {
    expect(files).toContain(path.join('loader', 'index.ts'));
    expect(files).toContain(path.join('widgets', 'events', 'index.ts'));
  });

  it.each(files)('%s imports no server code and only types from contract/', (file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const [, , typeOnly, spec] of text.matchAll(IMPORT)) {
      const target = spec.startsWith('.') ? path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)) : spec;
      expect(target, `${file} imports ${spec}`).not.toMatch(/^server[\\/]/);
      if (/^contract[\\/]/.test(target)) expect(typeOnly, `${file} imports ${spec} as a value`).toBeTruthy();
      expect(spec, `${file} imports zod`).not.toMatch(/^zod/);
    }
  });

  it('keeps the loader free of widget runtime code', () => {
    for (const file of sources('loader')) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const [, , typeOnly, spec] of text.matchAll(IMPORT)) {
        if (spec.includes('widgets/')) expect(typeOnly, `${file} imports ${spec} as a value`).toBeTruthy();
        expect(spec).not.toMatch(/^(preact|@preact|nanostores)/);
      }
    }
  });
});
