// SMTP_URL decides where mail goes: an SMTP relay, or `.eml` files under the data directory.
import path from 'node:path';
import type { MailConfig } from './config.ts';
import { emlFileTransport } from './eml-files.ts';
import { smtpTransport } from './smtp.ts';
import type { MailTransport } from './transport.ts';

/** `<SVC_DATA_DIR>/mail`: where messages are written without SMTP. */
export const mailFilesDir = (dataDir: string): string => path.join(dataDir, 'mail');

export function chooseMailTransport(config: MailConfig, dataDir: string): MailTransport {
  return config.smtp ? smtpTransport(config.smtp) : emlFileTransport(mailFilesDir(dataDir));
}
