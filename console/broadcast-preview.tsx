// The compose form's live preview (server/site/console/broadcasts.ts): the form's own "Preview"
// button posts the fields into the preview's iframe; this presses it for the leader a moment after
// they stop typing, so the preview follows the draft. Without JavaScript the button does the same
// when pressed.
const DEBOUNCE_MS = 500;

export function mountBroadcastPreview(el: HTMLElement): void {
  if (!(el instanceof HTMLFormElement)) return;
  const form = el;
  const button = form.querySelector<HTMLButtonElement>('[data-preview-button]');
  if (!button) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = () => {
    clearTimeout(timer);
    timer = setTimeout(() => form.requestSubmit(button), DEBOUNCE_MS);
  };
  form.addEventListener('input', refresh);
  form.addEventListener('change', refresh);
  // A draft re-shown after a refused send is previewed at once.
  if ((form.elements.namedItem('subject') as HTMLInputElement | null)?.value) refresh();
}
