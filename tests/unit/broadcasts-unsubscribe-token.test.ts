// The broadcast unsubscribe token: what it signs comes back, anything else is refused.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UnsubscribeTokens } from '../../server/broadcasts/unsubscribe-token.ts';

const master = crypto.randomBytes(32);
const tokens = new UnsubscribeTokens(master);
const claims = {
  communityId: '01a21a03-abe2-71c0-8b64-8d0082c29e15',
  userId: '01a21a03-abe2-71c0-8b64-8d0082c29e16',
  broadcastId: '01a21a03-abe2-71c0-8b64-8d0082c29e17',
};

describe('unsubscribe tokens', () => {
  it('verifies what it signed, and a test send’s token names no user', () => {
    expect(tokens.verify(tokens.sign(claims))).toEqual(claims);
    expect(tokens.verify(tokens.sign({ ...claims, userId: null }))).toEqual({ ...claims, userId: null });
  });

  it('is URL-safe as it is and compact', () => {
    const token = tokens.sign(claims);
    expect(token).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(encodeURIComponent(token)).toBe(token);
    expect(token.length).toBeLessThan(180);
  });

  it('refuses a token signed with another master key', () => {
    expect(new UnsubscribeTokens(crypto.randomBytes(32)).verify(tokens.sign(claims))).toBeNull();
  });

  it('refuses every single-character change of the token', () => {
    const token = tokens.sign(claims);
    for (let i = 0; i < token.length; i++) {
      if (token[i] === '.') continue;
      const altered = `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`;
      const verified = tokens.verify(altered);
      // A change in the last base64url character's unused bits may decode to the same bytes.
      if (verified !== null) expect(verified).toEqual(claims);
    }
  });

  it('refuses another member, community or broadcast under the original MAC', () => {
    const [, mac] = tokens.sign(claims).split('.');
    for (const other of [
      { ...claims, userId: claims.broadcastId },
      { ...claims, communityId: claims.userId },
      { ...claims, broadcastId: claims.communityId },
      { ...claims, userId: null },
    ]) {
      const payload = Buffer.from(`${other.communityId}.${other.userId ?? ''}.${other.broadcastId}`).toString(
        'base64url',
      );
      expect(tokens.verify(`${payload}.${mac}`)).toBeNull();
    }
  });

  it('refuses malformed input', () => {
    const [payload, mac] = tokens.sign(claims).split('.');
    for (const bad of [
      '',
      '.',
      payload,
      `${payload}.`,
      `.${mac}`,
      `${payload}.${mac}.x`,
      `${payload}.${mac}=`,
      'a'.repeat(500),
    ])
      expect(tokens.verify(bad), bad).toBeNull();
  });
});
