// The WordPress plugin (integrations/wordpress/svc/) as far as it can be checked without
// WordPress: every PHP file parses (`php -l`), each block.json agrees with the plugin's widget table
// (read by PHP itself), readme.txt has WordPress's headers and sections, and the zip made by
// `npm run wordpress:zip` holds the plugin byte for byte. How it behaves is tested against a real
// WordPress by the WordPress suite.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildPluginZip, crc32, pluginFiles } from '../../scripts/wordpress-zip.ts';

const PLUGIN = path.resolve(__dirname, '../../integrations/wordpress/svc');
const BLOCKS = ['events', 'rsvp', 'donate', 'donate-button', 'apply', 'members', 'header', 'footer'];

function php(args: string[]): string {
  try {
    return execFileSync('php', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as { code?: string; stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') throw new Error('php-cli is needed for these checks (apt-get install php-cli)');
    throw new Error(`php ${args.join(' ')}: ${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

interface AttributeSpec {
  type: 'integer' | 'boolean' | 'enum' | 'string';
  html: string;
  default?: unknown;
  values?: string[];
  min?: number;
  max?: number;
}
type WidgetTable = Record<string, { tag: string; title: string; attributes: Record<string, AttributeSpec> }>;

const table = (): WidgetTable =>
  JSON.parse(
    php(['-r', `echo json_encode(require ${JSON.stringify(path.join(PLUGIN, 'includes/widget-specs.php'))});`]),
  ) as WidgetTable;

describe('the WordPress plugin', () => {
  it('every PHP file passes php -l', () => {
    const files = pluginFiles(PLUGIN, '').filter((f) => f.name.endsWith('.php'));
    expect(files.map((f) => f.name)).toEqual(
      expect.arrayContaining(['svc.php', 'uninstall.php', 'includes/render.php', 'includes/settings.php']),
    );
    for (const { file } of files) expect(php(['-l', file])).toContain('No syntax errors detected');
  });

  it('has the eight blocks, and each block.json declares the widget table’s attributes', () => {
    const widgets = table();
    expect(Object.keys(widgets)).toEqual(BLOCKS);
    for (const name of BLOCKS) {
      const block = JSON.parse(fs.readFileSync(path.join(PLUGIN, 'blocks', name, 'block.json'), 'utf8'));
      expect(block).toMatchObject({
        apiVersion: 2,
        name: `svc/${name}`,
        title: widgets[name].title,
        category: 'svc',
        editorScript: 'svc-editor',
      });
      const expected = Object.fromEntries(
        Object.entries(widgets[name].attributes).map(([key, spec]) => [
          key,
          {
            type: spec.type === 'enum' ? 'string' : spec.type,
            ...(spec.values ? { enum: spec.values } : {}),
            default: spec.default ?? (spec.type === 'string' ? '' : undefined),
          },
        ]),
      );
      expect(block.attributes, name).toEqual(expected);
    }
  });

  it('gives each widget the attributes docs/widgets.md lists for its element', () => {
    const docs = fs.readFileSync(path.resolve(__dirname, '../../docs/widgets.md'), 'utf8');
    const documented = (tag: string) => {
      const section = docs.split(/^## /m).find((s) => s.startsWith(`\`<${tag}>\``))!;
      const rows = section.slice(section.indexOf('| Attribute |')).split('\n\n')[0];
      return [...rows.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]).sort();
    };
    for (const [name, widget] of Object.entries(table())) {
      const html = Object.values(widget.attributes).map((a) => a.html);
      // The donate button is <svc-donate mode="button">: mode is fixed there.
      if (name === 'donate-button') html.push('mode');
      expect(html.sort(), name).toEqual(documented(widget.tag));
    }
  });

  it('keeps the link templates that make links and drops those that leave for another host', () => {
    // PHP's own preg_match on the table's patterns, as render.php validates a block or shortcode.
    const kept = (widget: string, attribute: string, values: string[]): boolean[] =>
      JSON.parse(
        php([
          '-r',
          `$s = require ${JSON.stringify(path.join(PLUGIN, 'includes/widget-specs.php'))};` +
            `$p = $s[${JSON.stringify(widget)}]['attributes'][${JSON.stringify(attribute)}]['pattern'];` +
            `echo json_encode(array_map(fn($v) => 1 === preg_match($p, $v), json_decode($argv[1])));`,
          JSON.stringify(values),
        ]),
      ) as boolean[];
    const siteHref = {
      // docs/widgets.md "Where links go": under a prefix, at the same paths, on another site.
      '/community{path}': true,
      '{path}': true,
      'https://shop.example/c{path}': true,
      'https://shop.example{path}': true,
      // {path} starts with a slash: these make `//events`, a host (https://events/), or `c//events`.
      '/{path}': false,
      '/community/{path}': false,
      'https://shop.example/{path}': false,
      '//evil.example{path}': false,
      'javascript:alert(1)//{path}': false,
      '{path}"onmouseover="x': false,
    };
    for (const widget of ['header', 'footer'])
      expect(kept(widget, 'siteHref', Object.keys(siteHref)), widget).toEqual(Object.values(siteHref));
    expect(kept('events', 'eventHref', ['/events/{slug}', '{slug}', '//evil.example/{slug}'])).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('has a readme.txt in WordPress’s format', () => {
    const readme = fs.readFileSync(path.join(PLUGIN, 'readme.txt'), 'utf8');
    expect(readme).toMatch(/^=== svc ===\n/);
    for (const header of ['Contributors', 'Tags', 'Requires at least', 'Tested up to', 'Stable tag', 'License'])
      expect(readme).toMatch(new RegExp(`^${header}: \\S`, 'm'));
    expect(readme).toMatch(/^Requires at least: 6\.1$/m);
    for (const section of ['Description', 'Installation', 'Frequently Asked Questions', 'Changelog'])
      expect(readme).toContain(`\n== ${section} ==\n`);
    const version = /^ \* Version:\s+(\S+)/m.exec(fs.readFileSync(path.join(PLUGIN, 'svc.php'), 'utf8'))![1];
    expect(readme).toMatch(new RegExp(`^Stable tag: ${version.replace(/\./g, '\\.')}$`, 'm'));
  });

  it('npm run wordpress:zip packs every plugin file under svc/, byte for byte', () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wp-zip-')), 'svc-wordpress.zip');
    const names = buildPluginZip(PLUGIN, out);
    const zip = fs.readFileSync(out);

    // Read it back from the central directory, as an unzip program does.
    const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    const count = zip.readUInt16LE(end + 10);
    let at = zip.readUInt32LE(end + 16);
    const read: Record<string, Buffer> = {};
    for (let i = 0; i < count; i++) {
      expect(zip.readUInt32LE(at)).toBe(0x02014b50);
      const [method, crc, packed, size] = [
        zip.readUInt16LE(at + 10),
        zip.readUInt32LE(at + 16),
        zip.readUInt32LE(at + 20),
        zip.readUInt32LE(at + 24),
      ];
      const nameLength = zip.readUInt16LE(at + 28);
      const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
      const local = zip.readUInt32LE(at + 42);
      expect(zip.readUInt32LE(local)).toBe(0x04034b50);
      const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      expect(method).toBe(8);
      const data = inflateRawSync(zip.subarray(dataAt, dataAt + packed));
      expect(data.length).toBe(size);
      expect(crc32(data)).toBe(crc);
      read[name] = data;
      at += 46 + nameLength;
    }
    const expected = pluginFiles(PLUGIN, 'svc/');
    expect(Object.keys(read)).toEqual(names);
    expect(names).toEqual(expected.map((f) => f.name));
    expect(names).toEqual(
      expect.arrayContaining([
        'svc/svc.php',
        'svc/readme.txt',
        'svc/uninstall.php',
        'svc/editor/blocks.js',
        'svc/blocks/rsvp/block.json',
      ]),
    );
    for (const { name, file } of expected) expect(read[name].equals(fs.readFileSync(file)), name).toBe(true);
    // The same plugin makes the same bytes.
    buildPluginZip(PLUGIN, `${out}.again`);
    expect(fs.readFileSync(`${out}.again`).equals(zip)).toBe(true);
  });

  it('computes the standard CRC-32', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });
});
