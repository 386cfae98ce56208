import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSecretBox, newSigningSecret, SecretBox } from '../../../server/webhooks/secret-box.ts';
import { signatureHeader } from '../../../server/webhooks/signature.ts';

describe('secret box', () => {
  it('opens what it sealed, for the same endpoint only, and never stores the plaintext', () => {
    const box = new SecretBox(crypto.randomBytes(32));
    const secret = newSigningSecret();
    const sealed = box.seal(secret, 'endpoint-a');
    expect(sealed).not.toContain(secret);
    expect(box.open(sealed, 'endpoint-a')).toBe(secret);
    expect(() => box.open(sealed, 'endpoint-b')).toThrow();
    expect(() => new SecretBox(crypto.randomBytes(32)).open(sealed, 'endpoint-a')).toThrow(/SVC_ENCRYPTION_KEY/);
  });

  it('makes a key file once in the data dir, private to its owner, and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-box-'));
    try {
      const sealed = loadSecretBox({ encryptionKey: null, dataDir: dir }).seal('whsec_x', 'e');
      const file = path.join(dir, 'encryption.key');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(loadSecretBox({ encryptionKey: null, dataDir: dir }).open(sealed, 'e')).toBe('whsec_x');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('signature header', () => {
  it('is t=<unix>,v1=<hex hmac of "t.body"> with one v1 per secret', () => {
    const header = signatureHeader('{"a":1}', ['whsec_one', 'whsec_two'], 1_700_000_000);
    const hmac = (s: string) => crypto.createHmac('sha256', s).update('1700000000.{"a":1}').digest('hex');
    expect(header).toBe(`t=1700000000,v1=${hmac('whsec_one')},v1=${hmac('whsec_two')}`);
  });
});
