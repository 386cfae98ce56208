import crypto from 'node:crypto';
import { SignJWT, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/index.ts';
import { runForSite, SessionTokens, SESSION_LIFETIME_SECONDS, userForToken } from '../../server/domain/sessions.ts';

const key = crypto.randomBytes(32);
const tokens = new SessionTokens(key);
const userId = crypto.randomUUID();
const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
const hmac = (data: string, k: Buffer = key) => crypto.createHmac('sha256', k).update(data).digest('base64url');

describe('session tokens: what a valid token is', () => {
  it('is a three-part HS256 JWT carrying userId, iat and exp about 30 days apart', async () => {
    const { token, expiresAt } = await tokens.issue(userId);
    const [header, payload, signature] = token.split('.');
    expect(signature).toBeTruthy();
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'HS256' });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    // Issued outside any site request: the platform's.
    expect(claims).toMatchObject({ userId, iss: 'svc', aud: 'svc:platform' });
    expect(claims.exp - claims.iat).toBe(SESSION_LIFETIME_SECONDS);
    expect(expiresAt.getTime()).toBe(claims.exp * 1000);
    expect(claims.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims.auth_time).toBe(claims.iat);
    expect(await tokens.verify(token)).toEqual({
      userId,
      sid: claims.sid,
      authTime: claims.iat,
      iat: claims.iat,
      exp: claims.exp,
      site: null,
    });
  });
});

describe('session tokens: attacks are refused', () => {
  it('refuses alg none', async () => {
    const now = Math.floor(Date.now() / 1000);
    const forged = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ userId, iat: now, exp: now + 60, iss: 'svc', aud: 'svc:site' })}.`;
    expect(await tokens.verify(forged)).toBeNull();
  });

  it('refuses a token signed with another key', async () => {
    const { token } = await new SessionTokens(crypto.randomBytes(32)).issue(userId);
    expect(await tokens.verify(token)).toBeNull();
  });

  it('refuses an RS256 token, and an RS256 header over an HMAC made with our key (key confusion)', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const rs = await new SignJWT({ userId })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer('svc')
      .setAudience('svc:site')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    expect(await tokens.verify(rs)).toBeNull();
    const now = Math.floor(Date.now() / 1000);
    const signingInput = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ userId, iat: now, exp: now + 60, iss: 'svc', aud: 'svc:site' })}`;
    expect(await tokens.verify(`${signingInput}.${hmac(signingInput)}`)).toBeNull();
  });

  it('refuses an expired token', async () => {
    const { token } = await tokens.issue(userId, Date.now() - (SESSION_LIFETIME_SECONDS + 60) * 1000);
    expect(await tokens.verify(token)).toBeNull();
  });

  it('refuses a tampered payload', async () => {
    const { token } = await tokens.issue(userId);
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${header}.${b64({ ...claims, userId: crypto.randomUUID() })}.${signature}`;
    expect(await tokens.verify(tampered)).toBeNull();
  });

  it('refuses another issuer or audience, a userId that is not a UUID, and garbage', async () => {
    const other = await new SignJWT({ userId })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('else')
      .setAudience('svc:site')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);
    expect(await tokens.verify(other)).toBeNull();
    const notUuid = await new SignJWT({ userId: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('svc')
      .setAudience('svc:site')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);
    expect(await tokens.verify(notUuid)).toBeNull();
    for (const junk of ['', 'a.b.c', 'not a token', `${'x'.repeat(5000)}`])
      expect(await tokens.verify(junk)).toBeNull();
  });

  it('refuses a valid token of a user who has since been deleted', async () => {
    const handle = openDatabase({ kind: 'sqlite', file: ':memory:' });
    try {
      await migrate(handle.db);
      await handle.db
        .insertInto('users')
        .values({
          id: userId,
          email: 'a@example.com',
          name: 'A',
          usertag: 'a',
          profile_image: null,
          bio: null,
          phone: null,
          password_hash: null,
          created_at: new Date().toISOString(),
        })
        .execute();
      const { token } = await tokens.issue(userId);
      expect(await userForToken(handle.db, tokens, token)).toMatchObject({ userId });
      await handle.db.deleteFrom('users').where('id', '=', userId).execute();
      expect(await userForToken(handle.db, tokens, token)).toBeNull();
    } finally {
      await handle.close();
    }
  });
});

describe('session tokens: bound to the site that issued them', () => {
  const signed = (aud: string | string[]) =>
    new SignJWT({ userId, sid: crypto.randomUUID(), auth_time: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('svc')
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);

  it('carries svc:site:<tag> for a community and svc:platform for the platform, and verifies only for that site', async () => {
    const club = (await tokens.issue(userId, Date.now(), undefined, 'club')).token;
    const platform = (await tokens.issue(userId, Date.now(), undefined, null)).token;
    const aud = (t: string) => JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString()).aud;
    expect([aud(club), aud(platform)]).toEqual(['svc:site:club', 'svc:platform']);
    expect(await tokens.verify(club, Date.now(), { site: 'club' })).toMatchObject({ userId, site: 'club' });
    expect(await tokens.verify(club, Date.now(), { site: 'rival' })).toBeNull();
    expect(await tokens.verify(club, Date.now(), { site: null })).toBeNull();
    expect(await tokens.verify(platform, Date.now(), { site: null })).toMatchObject({ userId, site: null });
    expect(await tokens.verify(platform, Date.now(), { site: 'club' })).toBeNull();
    // A community tagged "platform" is not the platform.
    const tagged = (await tokens.issue(userId, Date.now(), undefined, 'platform')).token;
    expect(await tokens.verify(tagged, Date.now(), { site: null })).toBeNull();
    expect(await tokens.verify(platform, Date.now(), { site: 'platform' })).toBeNull();
  });

  it("binds a token issued without a site to the site of the request being served, and a refresh to its session's site", async () => {
    const issued = await runForSite(
      async () => 'club',
      () => tokens.issue(userId),
    );
    const claims = await tokens.verify(issued.token, Date.now(), { site: 'club' });
    expect(claims?.site).toBe('club');
    const refreshed = await tokens.issue(userId, Date.now(), {
      sid: claims!.sid,
      authTime: claims!.authTime,
      site: claims!.site,
    });
    expect(await tokens.verify(refreshed.token, Date.now(), { site: 'club' })).toMatchObject({ sid: claims!.sid });
  });

  it('refuses the old unbound audience, several audiences, and an audience that is not ours', async () => {
    for (const aud of [
      'svc:site',
      ['svc:site:club', 'svc:site:rival'],
      'svc:site:Club',
      'svc:site:',
      'svc:site:club/x',
      'other',
    ]) {
      const t = await signed(aud);
      expect(await tokens.verify(t), JSON.stringify(aud)).toBeNull();
      expect(await tokens.verify(t, Date.now(), { site: 'club' }), JSON.stringify(aud)).toBeNull();
    }
  });
});
