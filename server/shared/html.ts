// Escaping for the HTML we write ourselves (e-mails, hosted pages, the local checkout). Imports
// nothing of ours, so every layer that writes HTML uses the same one.

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
