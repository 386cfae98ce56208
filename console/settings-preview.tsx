// The settings page's live preview (server/site/console/settings.ts): the frame named
// `settings-preview` shows the sample page `POST /admin/settings/preview` answers. Without
// JavaScript each of the theme and header forms has a Preview button that posts its own draft
// there (formaction, formtarget). With it, this posts the drafts of both forms together, a moment
// after the leader stops typing, through the same plain form post (same CSRF token, same server
// render), so the preview is never a second renderer of its own.
const DEBOUNCE_MS = 350;

export function settingsPreview(el: HTMLElement): void {
  const frame = el.querySelector('iframe');
  const forms = [...document.querySelectorAll<HTMLFormElement>('form[data-preview]')];
  if (!frame?.name || forms.length === 0) return;
  const post = document.createElement('form');
  post.method = 'post';
  post.action = '/admin/settings/preview';
  post.target = frame.name;
  post.hidden = true;
  document.body.append(post);

  const send = () => {
    const fields: [string, string][] = [];
    const once = new Set<string>();
    for (const form of forms)
      for (const [name, value] of new FormData(form)) {
        // Both forms carry the token and the fingerprint: one of each is enough.
        if ((name === '_csrf' || name === 'fingerprint') && once.has(name)) continue;
        once.add(name);
        if (typeof value === 'string') fields.push([name, value]);
      }
    post.replaceChildren(
      ...fields.map(([name, value]) => {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        return input;
      }),
    );
    post.submit();
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(send, DEBOUNCE_MS);
  };
  for (const form of forms) {
    form.addEventListener('input', (event) => {
      const target = event.target;
      // Picking a colour means the key is set: its "Not set" box is unticked for the leader.
      if (target instanceof HTMLInputElement && target.type === 'color') {
        const unset = form.querySelector<HTMLInputElement>(`input[name="${CSS.escape(`${target.name}.unset`)}"]`);
        if (unset) unset.checked = false;
      }
      schedule();
    });
    form.addEventListener('change', schedule);
  }
}
