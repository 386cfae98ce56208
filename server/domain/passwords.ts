// Passwords: scrypt with the parameters stored beside the hash, so they can be raised later
// without invalidating what is stored.
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

/** `scrypt$N$r$p$saltB64$hashB64`: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(plain: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scryptAsync(plain.normalize('NFKC'), salt, SCRYPT.keylen, {
    N: SCRYPT.N,
    r: SCRYPT.r,
    p: SCRYPT.p,
  });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Constant-time check of a password against a stored `scrypt$...` hash; any other format is false. */
export async function verifyPassword(plain: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  if (![N, r, p].every(Number.isInteger) || expected.length === 0) return false;
  const actual = await scryptAsync(plain.normalize('NFKC'), salt, expected.length, {
    N,
    r,
    p,
    maxmem: 256 * N * r + 1024 * 1024,
  });
  return crypto.timingSafeEqual(actual, expected);
}
