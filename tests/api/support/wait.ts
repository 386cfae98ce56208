// Polling for what a background worker (webhooks, mail) does in its own time.

type Falsy = null | undefined | false | 0 | '';

/** Polls until check() is truthy, or fails with `what` after timeoutMs. */
export async function waitFor<T>(
  check: () => Promise<T | Falsy> | T | Falsy,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
