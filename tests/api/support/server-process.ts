// The server as `npm start` runs it, in a child process: config -> database -> migrations -> seed
// -> listen. For tests of what only a separate, whole process does (starting, stopping, workers
// it starts, files it writes, what it logs, seeing another process's changes).
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface ServerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** stdout and stderr so far. */
  output(): string;
}

/** Starts `server/main.ts` with `env` over a quiet, embedded-default environment (no DATABASE_URL, no REDIS_URL). */
export function runServer(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

/** Resolves once `url` answers 2xx; throws after `ms`. */
export async function waitFor(url: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} never became ready`);
}

/** A port in a range no other test file picks, for a server process. */
export const randomPort = (from: number): string => String(from + Math.floor(Math.random() * 200));

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

export interface RunningServer {
  port: string;
  /** stdout and stderr so far (the log at LOG_LEVEL=warn, as JSON lines). */
  output(): string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the server on `dataDir` (embedded SQLite, no SMTP, no Redis) and resolves once it is ready. */
export async function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const server = runServer({
    SMTP_URL: '',
    PORT: port,
    SVC_DATA_DIR: dataDir,
    SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...env,
  });
  let exitCode: number | null | undefined;
  void server.exited.then((code) => {
    exitCode = code;
  });
  const stop = () => {
    server.child.kill('SIGTERM');
    return server.exited;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break;
    } catch {
      /* starting */
    }
    if (exitCode !== undefined)
      throw new Error(`the server exited with ${exitCode} before it was ready:\n${server.output()}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server was not ready within 30 s:\n${server.output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, output: server.output, stop };
}
