// The texts a test server sent, read from its `sms_outbox` (the default SMS sender writes there,
// sealed) and opened with the server's key, as `svc sms list` does.
import { listSmsOutbox } from '../../../server/sms/sender.ts';
import type { TestServer } from './harness.ts';

/** Every text to `phone`, newest first. */
export async function smsTexts(server: TestServer, phone: string): Promise<string[]> {
  return (await listSmsOutbox(server.database.db, server.outboxSeal, { to: phone, limit: 1000 })).map((m) => m.text);
}

/** The 6-digit code that ends the newest text to `phone`. */
export async function lastSmsCode(server: TestServer, phone: string): Promise<string> {
  const [text] = await smsTexts(server, phone);
  if (text === undefined) throw new Error(`no text to ${phone}`);
  return /(\d{6})$/.exec(text)![1];
}

/** Another 6-digit code than `code`. */
export const otherThan = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
