// Destructive forms (`<form data-confirm="question">`, server/site/console/page.ts actionForm) ask
// in a modal dialog before they post. Without JavaScript the post itself answers a page that asks
// (confirmationPage); with it, the dialog's "Confirm" posts the form with `confirmed=yes`, the
// field that page's button sends, so the server needs no second round trip.
import { render } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

function ConfirmDialog(props: { question: string; onAnswer: (yes: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} class="confirm-dialog" aria-labelledby="confirm-question" onCancel={() => props.onAnswer(false)}>
      <p id="confirm-question">{props.question}</p>
      <form method="dialog" class="actions">
        <button type="button" class="danger" onClick={() => props.onAnswer(true)}>
          Confirm
        </button>
        <button type="button" class="secondary" autofocus onClick={() => props.onAnswer(false)}>
          Cancel
        </button>
      </form>
    </dialog>
  );
}

export function enhanceConfirmations(root: ParentNode): void {
  root.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.confirm) return;
    if (form.querySelector('input[name="confirmed"][value="yes"]')) return;
    event.preventDefault();
    // Where focus goes back to on Cancel: the dialog is removed, not closed, so the browser does not.
    const opener = (event as SubmitEvent).submitter ?? form.querySelector<HTMLElement>('button');
    const host = document.createElement('div');
    document.body.append(host);
    const close = (yes: boolean) => {
      render(null, host);
      host.remove();
      if (!yes) {
        opener?.focus();
        return;
      }
      const field = document.createElement('input');
      field.type = 'hidden';
      field.name = 'confirmed';
      field.value = 'yes';
      form.append(field);
      form.requestSubmit();
      // The post has its fields now. Left in the form, the field would let the next press (after a
      // stopped navigation, or on this page brought back by the Back button) skip the question.
      field.remove();
    };
    render(<ConfirmDialog question={form.dataset.confirm} onAnswer={close} />, host);
  });
}
