// What <svc-rsvp> and <svc-apply> show around their form: loading their store (and telling the
// host page when that fails), the loading line, the load error with its retry, and the notice
// a return from the hosted checkout leaves. In the forms chunk with the rest of widgets/lib/forms/,
// so widgets without a form never download it.
import type { ReadonlySignal } from '../signals.ts';
import { useEffect, useRef } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import type { WidgetProps } from '../define-element.ts';

interface LoadingStore {
  readonly error: ReadonlySignal<ApiError | null>;
  load(): Promise<void>;
  dispose(): void;
}

/** Loads `store` (when `ready`) for as long as it is the widget's, and reports a load failure as `svc:<widget>:error`. */
export function useStoreLoad(store: LoadingStore, emit: WidgetProps['emit'], ready = true): ApiError | null {
  useEffect(() => {
    if (ready) void store.load();
    return () => store.dispose();
  }, [store]);

  const error = store.error.value;
  useEffect(() => {
    // The host page may want the request id for a support ticket; the visitor gets plain words.
    if (error)
      emit('error', {
        action: 'load',
        status: error.status,
        code: error.code,
        requestId: error.requestId,
        message: error.message,
      });
  }, [error]);
  return error;
}

/**
 * The widget's box while its data (and the community's theme) is on the way, as tall as the
 * form usually is (`.<box>.loading` in its styles), so the page does not move when it arrives.
 */
export function Loading({ box, text }: { box: string; text: string }) {
  return (
    <div class={`${box} loading`} aria-busy="true">
      <p class="status" part="status" role="status">
        {text}
      </p>
    </div>
  );
}

/** The load failed: plain words, a retry when one may help, and the customer's fallback link if they wrote one. */
export function LoadFailed({ box, text, retry }: { box: string; text: string; retry?: () => void }) {
  return (
    <div class={box}>
      <div class="error" part="error" role="alert">
        <span>{text}</span>
        {retry && (
          <button type="button" class="secondary" part="retry" onClick={retry}>
            Try again
          </button>
        )}
        <slot />
      </div>
    </div>
  );
}

/** Says what the page URL tells about a checkout this widget started; focused, so it is read first. */
export function Notice({ text }: { text: string }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <p class="notice" part="notice" role="status" tabIndex={-1} ref={ref}>
      {text}
    </p>
  );
}
