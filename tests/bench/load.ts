// What the HTTP benchmarks share: a server in a child process, up once its ready URL answers, and
// an autocannon measurement of one URL (a short warm-up, then the timed run).
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/**
 * The port `offset` above BENCH_PORT_BASE (default 3900), so two people benching on one machine
 * can keep apart: each bench keeps its own offsets (hosted site 11-12, chrome proxy 21-22, ...).
 */
export const benchPort = (offset: number): string => String(Number(process.env.BENCH_PORT_BASE ?? 3900) + offset);

export function start(script: string, env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 60_000;
    const poll = async () => {
      try {
        if ((await fetch(readyUrl)).ok) return resolve(child);
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) return reject(new Error(`${script} did not start`));
      setTimeout(poll, 200);
    };
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    poll();
  });
}

export async function measure(
  title: string,
  url: string,
  headers: Record<string, string> = {},
  opts: { connections?: number; duration?: number } = {},
) {
  const connections = opts.connections ?? CONNECTIONS;
  const duration = opts.duration ?? DURATION;
  await autocannon({ url, headers, connections, duration: 2 }); // warm-up
  const r = await autocannon({ url, headers, connections, duration });
  return {
    title,
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    /** Mean latency in ms. */
    mean: r.latency.average,
    non2xx: r.non2xx + r.errors + r.timeouts,
  };
}

export type Measurement = Awaited<ReturnType<typeof measure>>;

/** One measurement as a report line: the title padded to `width`, then req/s, p99 and the failures. */
export const row = (m: Measurement, width = 52): string =>
  `${m.title.padEnd(width)} ${m.reqPerSec.toFixed(0).padStart(8)} req/s   p99 ${String(m.p99).padStart(4)} ms   non-2xx ${m.non2xx}`;
