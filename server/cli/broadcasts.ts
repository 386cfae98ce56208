// `svc broadcasts unsubscribe <token>`: applies an unsubscribe that arrived by mail. Every
// broadcast message's List-Unsubscribe names a mailto (SVC_MAIL_FROM's address, subject
// `unsubscribe <token>`) besides the page's URL; svc reads no mailbox, so an operator who gets
// such a mail runs this with its subject (or the token alone). The token is checked exactly as the
// page checks it, and the same row and counter are recorded (server/broadcasts/unsubscribe.ts).
import type { Command } from 'commander';
import { recordUnsubscribe } from '../broadcasts/unsubscribe.ts';
import { UnsubscribeTokens } from '../broadcasts/unsubscribe-token.ts';
import { existingMasterKey } from '../secrets.ts';
import { CliError, out, withDatabase } from './runtime.ts';
import { sayWhatMoved } from './console-moved.ts';

/** The token from what was pasted: the token, the mail's subject `unsubscribe <token>`, or the page's URL. */
function tokenFrom(input: string): string {
  const text = input.trim().replace(/^unsubscribe\s+/i, '');
  try {
    const url = new URL(text);
    return url.searchParams.get('token') ?? '';
  } catch {
    return text;
  }
}

export function registerBroadcastCommands(program: Command): void {
  const broadcasts = program.command('broadcasts').description("Broadcasts: e-mails to a community's members.");
  sayWhatMoved(broadcasts, 'broadcasts');
  broadcasts
    .command('unsubscribe')
    .description(
      'Applies an unsubscribe request that came by mail: the token from its subject ("unsubscribe <token>"), or the unsubscribe URL.',
    )
    .argument('<token>', 'the token, the whole subject, or the unsubscribe URL')
    .action(async (input: string) => {
      await withDatabase(async (db, ctx) => {
        const master = existingMasterKey(ctx.config);
        if (!master)
          throw new CliError(
            'no master key: set SVC_ENCRYPTION_KEY or SVC_DATA_DIR to the ones the server signed the links with',
          );
        const claims = new UnsubscribeTokens(master).verify(tokenFrom(input));
        if (!claims) throw new CliError('not a valid unsubscribe token (altered, or signed with another key)');
        const outcome = await recordUnsubscribe(db, claims);
        if (outcome === 'test') return out('a test send: its token unsubscribes nobody; nothing changed');
        if (outcome === 'unknown') throw new CliError('the account of this token no longer exists');
        const user = await db.selectFrom('users').select('email').where('id', '=', claims.userId!).executeTakeFirst();
        const community = await db
          .selectFrom('communities')
          .select('tag')
          .where('id', '=', claims.communityId)
          .executeTakeFirst();
        out(
          `${outcome === 'already' ? 'already unsubscribed' : 'unsubscribed'}: ${user?.email ?? claims.userId} from ${community?.tag ?? claims.communityId}'s broadcasts`,
        );
      });
    });
}
