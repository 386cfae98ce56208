// Removes this run's server data directory (created in playwright.config.ts).
import fs from 'node:fs';

export default function globalTeardown(): void {
  const dir = process.env.SVC_E2E_DATA_DIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
