// The repository's docs must stand alone and stay navigable: every relative link in README.md
// and docs/ resolves to a file (and, with a #fragment into Markdown, to one of its headings)
// inside the repository, and the docs the contract's descriptions name exist.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The text without fenced code blocks and inline code, where `[x](y)` is not a link. */
function withoutCode(markdown: string): string {
  return withoutCodeBlocks(markdown).replace(/`[^`\n]*`/g, '');
}

/** `[text](target)` targets; the optional title after the target is dropped. */
function linkTargets(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutCodeBlocks(fs.readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingAnchor(match[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Why `target`, linked from `file`, is broken, or null when it resolves inside the repository. */
function brokenLink(file: string, target: string): string | null {
  if (/^(https?:|mailto:)/i.test(target)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return 'a link outside the repository (not http, https or mailto)';
  const [rawPath, fragment] = target.split('#', 2) as [string, string | undefined];
  const linkPath = decodeURIComponent(rawPath);
  if (linkPath.startsWith('/')) return 'an absolute path (outside the repository, or not portable)';
  const resolved = linkPath === '' ? file : path.resolve(path.dirname(file), linkPath);
  const inside = path.relative(ROOT, resolved);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return 'a link outside the repository';
  if (!fs.existsSync(resolved)) return 'no such file';
  if (fragment !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(fragment)) {
    return `no heading #${fragment} in ${path.relative(ROOT, resolved)}`;
  }
  return null;
}

const DOCS = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

describe('documentation links', () => {
  it('finds the docs', () => {
    expect(DOCS.length).toBeGreaterThan(10);
  });

  it('every relative link in README.md and docs/ resolves inside the repository', () => {
    const broken = DOCS.flatMap((file) =>
      linkTargets(fs.readFileSync(file, 'utf8'))
        .map((target) => ({ target, why: brokenLink(file, target) }))
        .filter((link) => link.why !== null)
        .map((link) => `${path.relative(ROOT, file)}: ${link.target} (${link.why})`),
    );
    expect(broken).toEqual([]);
  });

  it('docs/README.md lists every document and every decision record is in the decisions index', () => {
    const index = path.join(ROOT, 'docs/README.md');
    const listed = new Set(
      linkTargets(fs.readFileSync(index, 'utf8')).map((t) => path.resolve(path.dirname(index), t.split('#')[0])),
    );
    const topLevel = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(topLevel.filter((f) => !listed.has(path.join(ROOT, 'docs', f)))).toEqual([]);
    expect(listed.has(path.join(ROOT, 'docs/decisions/README.md'))).toBe(true);

    const decisions = path.join(ROOT, 'docs/decisions');
    const records = fs.readdirSync(decisions).filter((f) => /^\d{4}-.+\.md$/.test(f));
    const inIndex = new Set(linkTargets(fs.readFileSync(path.join(decisions, 'README.md'), 'utf8')));
    expect(records.filter((f) => !inIndex.has(f))).toEqual([]);
    expect(records.map((f) => Number(f.slice(0, 4)))).toEqual(records.map((_, i) => i + 1));
  });

  it("the docs named in the contract's descriptions exist", () => {
    const dir = path.join(ROOT, 'contract/routes');
    const named = fs.readdirSync(dir).flatMap((f) =>
      [...fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/docs\/[\w./-]+\.md/g)].map((m) => ({
        file: f,
        doc: m[0],
      })),
    );
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter(({ doc }) => !fs.existsSync(path.join(ROOT, doc)))).toEqual([]);
  });

  it('catches what it is for', () => {
    const readme = path.join(ROOT, 'README.md');
    expect(brokenLink(readme, '../shared/DESIGN.md')).toBe('a link outside the repository');
    expect(brokenLink(readme, 'docs/nope.md')).toBe('no such file');
    expect(brokenLink(readme, 'docs/api.md#no-such-heading')).toMatch(/^no heading/);
    expect(brokenLink(readme, 'file:///etc/passwd')).toMatch(/outside the repository/);
    expect(brokenLink(readme, '/etc/passwd')).toMatch(/absolute path/);
    expect(brokenLink(readme, 'docs/api.md#idempotency')).toBeNull();
    expect(brokenLink(readme, 'https://example.com/x')).toBeNull();
    expect(linkTargets('see `[a](b.md)` and\n```\n[c](d.md)\n```\n[e](f.md "title")')).toEqual(['f.md']);
    expect(headingAnchor('`svc import <file>`')).toBe('svc-import-file');
    expect(headingAnchor('HTTPS: Secure cookies and HSTS')).toBe('https-secure-cookies-and-hsts');
  });
});
