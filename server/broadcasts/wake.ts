// In-process wake-up for broadcast dispatchers: a broadcast queued by a request rings them once its
// transaction has committed (never for a rolled-back one), so sending starts at once instead of at
// the next poll. Dispatchers in other processes find it by polling.
type Listener = () => void;
const listeners = new Set<Listener>();

export function onNewBroadcast(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function wakeBroadcastDispatchers(): void {
  for (const l of listeners) l();
}
