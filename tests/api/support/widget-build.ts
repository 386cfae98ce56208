// Vitest global setup of the API project: hosted pages render the widgets on the server from the
// widget build (dist/ssr/widgets.js and the chunk manifest, docs/hosted-site.md "How pages are
// made"), which `npm start` makes first (prestart) but a fresh clone's `vitest run` would not
// have. Built here when missing or older than its sources; `vite build` takes about a second.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBuilder } from 'vite';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const OUTPUTS = [
  'dist/ssr/widgets.js',
  'dist/widgets.manifest.json',
  'dist/widgets/loader.js',
  'dist/widgets-compressed/loader.js.br',
];
const SOURCES = ['widgets', 'loader', 'contract', 'vite.config.ts', 'package-lock.json'];

function newest(file: string): number {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(file).map((f) => newest(path.join(file, f))));
}

export function isStale(): boolean {
  const outputs = OUTPUTS.map((f) => path.join(ROOT, f));
  if (!outputs.every((f) => fs.existsSync(f))) return true;
  const built = Math.min(...outputs.map((f) => fs.statSync(f).mtimeMs));
  return SOURCES.some((s) => fs.existsSync(path.join(ROOT, s)) && newest(path.join(ROOT, s)) > built);
}

export default async function setup(): Promise<void> {
  if (!isStale()) return;
  const builder = await createBuilder({ root: ROOT, configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
  await builder.buildApp();
}
