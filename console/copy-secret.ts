// A "Copy" button beside a secret shown once (server/site/console/integrations.ts): the page
// already makes the secret selectable with one click (`user-select: all`), so without JavaScript,
// or where the clipboard is refused, selecting and copying by hand still works.
export function copySecret(el: HTMLElement): void {
  const text = el.textContent?.trim() ?? '';
  if (!text || !navigator.clipboard) return;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary';
  button.textContent = 'Copy';
  const said = document.createElement('span');
  said.setAttribute('role', 'status');
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(text).then(
      () => (said.textContent = 'Copied.'),
      () => (said.textContent = 'Copying was refused: select the secret and copy it.'),
    );
  });
  el.after(button, ' ', said);
}
