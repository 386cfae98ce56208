// The texts a test server sent, read from its `sms_outbox` (the default SMS sender writes there).
import type { TestServer } from './harness.ts';

/** The 6-digit code that ends the newest text to `phone`. */
export async function lastSmsCode(server: TestServer, phone: string): Promise<string> {
  const row = await server.database.db.selectFrom('sms_outbox').select('text_body').where('to_number', '=', phone)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
  return /(\d{6})$/.exec(row.text_body)![1];
}

/** Another 6-digit code than `code`. */
export const otherThan = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
