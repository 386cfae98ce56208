// In-process wake-up for mail delivery workers: a message written to the outbox rings it once
// its transaction has committed (never for a rolled-back one), so mail goes out at once instead of
// at the next poll. Other processes find it by polling.
type Listener = () => void;
const listeners = new Set<Listener>();

export function onNewMail(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function wakeMailWorkers(): void {
  for (const l of listeners) l();
}
