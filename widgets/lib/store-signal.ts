// Nanostores hold what widgets share on a page; signals drive rendering inside a widget. This
// mirrors a store into a signal once per store, so components just read `.value`.
import { signal, type ReadonlySignal } from './signals.ts';
import type { ReadableAtom } from 'nanostores';

const mirrors = new WeakMap<ReadableAtom<unknown>, ReadonlySignal<unknown>>();

export function storeSignal<T>(store: ReadableAtom<T>): ReadonlySignal<T> {
  let mirror = mirrors.get(store) as ReadonlySignal<T> | undefined;
  if (!mirror) {
    const s = signal(store.get());
    // Page-lifetime stores: the subscription lives as long as the page.
    store.listen((value) => {
      s.value = value;
    });
    mirrors.set(store, (mirror = s));
  }
  return mirror;
}
