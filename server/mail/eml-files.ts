// The transport without SMTP_URL: each message is composed by nodemailer exactly as the SMTP
// path would send it and written as `<dir>/<created_at compact>-<id>.eml`, which any mail client
// opens. The files hold live reset links and ticket codes, so the directory is 0700 and each file
// 0600. A file appears whole or not at all (temp file + rename), so a reader never sees half a
// message; a second write of the same message (a retry after a crash) replaces it.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../data-dir.ts';
import { mailOptions, type MailTransport } from './transport.ts';

/** `2025-06-01T10:00:00.123Z` + id -> `20250601T100000.123Z-<id>.eml`: sorts by time, and no `:` for filesystems that refuse it. */
export function emlFileName(createdAt: string, id: string): string {
  const when = createdAt.replace(/[-:]/g, '').replace(/[^\w.]/g, '');
  return `${when}-${id.replace(/[^\w-]/g, '_')}.eml`;
}

async function writeAtomically(file: string, content: Buffer): Promise<void> {
  // Dot-prefixed, so a reader listing `*.eml` never picks up a file being written.
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${crypto.randomUUID()}.tmp`);
  const handle = await fs.open(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(content);
    // On disk before the rename makes it visible, and before the row is marked sent.
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

export function emlFileTransport(dir: string): MailTransport {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    async send(mail) {
      const info = await composer.sendMail(mailOptions(mail));
      await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const file = path.join(dir, emlFileName(mail.createdAt, mail.id));
      try {
        await writeAtomically(file, info.message as Buffer);
      } catch (err) {
        throw new Error(`could not write ${file}: ${(err as Error).message}`);
      }
      return { file };
    },
    describe: () => `files in ${dir}`,
    close: () => composer.close(),
  };
}
