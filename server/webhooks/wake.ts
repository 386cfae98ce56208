// In-process wake-up for delivery workers: emit() rings it after its transaction commits so a
// new delivery goes out at once instead of at the next poll. Other processes find it by polling.
type Listener = () => void;
const listeners = new Set<Listener>();

export function onNewDeliveries(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function wakeWorkers(): void {
  for (const l of listeners) l();
}
