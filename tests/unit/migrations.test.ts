// Migrations run in file-name order and are found on disk, so a misnumbered file would run out
// of order (or be skipped on databases that already ran a later one). These tests keep the
// numbering a plain sequence.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATION_FILE, migrationFiles } from '../../server/db/index.ts';

const DIR = path.resolve(import.meta.dirname, '../../server/db/migrations');

// Numbers that were never released. A number is never reused: a database that ran a later
// migration would refuse one inserted before it.
const NEVER_RELEASED = new Set([8]);

/** Why a list of migration file names is not a gapless sequence from 0001, or null. */
function sequenceProblem(files: string[]): string | null {
  let expected = 1;
  for (const file of files) {
    while (NEVER_RELEASED.has(expected)) expected += 1;
    const n = Number(MIGRATION_FILE.exec(file)?.[1]);
    if (n !== expected) return `${file}: expected number ${String(expected).padStart(4, '0')}`;
    expected += 1;
  }
  return null;
}

describe('migration files', () => {
  it('every file in the folder is a migration by its name', () => {
    const stray = fs.readdirSync(DIR).filter((f) => !MIGRATION_FILE.test(f));
    expect(stray).toEqual([]);
  });

  it('are numbered 0001 upwards without gaps or repeats', () => {
    expect(migrationFiles().length).toBeGreaterThan(10);
    expect(sequenceProblem(migrationFiles())).toBeNull();
  });

  it('the sequence check rejects a gap, a repeat and disorder', () => {
    expect(sequenceProblem(['0001_a.ts', '0002_b.ts', '0004_c.ts'])).toMatch(/0004_c.ts: expected number 0003/);
    expect(sequenceProblem(['0001_a.ts', '0001_b.ts'])).toMatch(/0001_b.ts/);
    expect(sequenceProblem(['0002_a.ts', '0001_b.ts'])).toMatch(/0002_a.ts/);
    expect(
      sequenceProblem([
        '0001_a.ts',
        '0002_b.ts',
        '0003_c.ts',
        '0004_c.ts',
        '0005_c.ts',
        '0006_c.ts',
        '0007_c.ts',
        '0009_c.ts',
      ]),
    ).toBeNull();
  });

  it('are discovered in name order from a folder', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-migrations-'));
    for (const f of ['0002_b.ts', '0001_a.ts', 'README.md', '0003_c.js']) fs.writeFileSync(path.join(dir, f), '');
    expect(migrationFiles(dir)).toEqual(['0001_a.ts', '0002_b.ts']);
  });
});
