// `node server/main.ts` as `npm start` runs it, on its own SQLite data directory, for tests of
// what only the whole process does (workers it starts, files it writes, what it logs at start).
import { spawn } from 'node:child_process';
import net from 'node:net';

export interface ServerProcess {
  port: string;
  /** stdout and stderr so far (the log at LOG_LEVEL=warn, as JSON lines). */
  output(): string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** A port nothing listens on right now (the OS picks it), so parallel test files do not collide. */
function freePort(): Promise<string> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(String(port)));
    });
  });
}

async function ready(port: string): Promise<boolean> {
  try { return (await fetch(`http://127.0.0.1:${port}/readyz`)).ok; } catch { return false; }
}

/** Starts the server on `dataDir` (embedded SQLite, no SMTP, no Redis) and resolves once it is ready. */
export async function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', SMTP_URL: '', PORT: port, SVC_DATA_DIR: dataDir,
      SVC_PUBLIC_URL: `http://127.0.0.1:${port}`, ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { exitCode = code; resolve(code); }));
  const stop = () => { child.kill('SIGTERM'); return exited; };
  const deadline = Date.now() + 30_000;
  while (!(await ready(port))) {
    if (exitCode !== undefined) throw new Error(`the server exited with ${exitCode} before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server was not ready within 30 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, output: () => output, stop };
}
