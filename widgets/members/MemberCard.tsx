import { useState } from 'preact/hooks';
import type { Member } from '../../contract/resources.ts';
import type { ApiClient } from '../lib/api.ts';
import { excerpt, formatJoined, initials } from './directory.ts';

export interface MemberCardProps {
  member: Member;
  href: string;
  locale: string | undefined;
  api: ApiClient;
  onSelect(member: Member, click: MouseEvent): void;
}

/**
 * One member. The name is the only link (a screen reader's links list reads as names); its
 * ::after covers the card so all of it is clickable. The avatar is decorative: the name follows.
 */
export function MemberCard({ member, href, locale, api, onSelect }: MemberCardProps) {
  // A picture that fails to load (moved, blocked, offline) falls back to the initials.
  const [failed, setFailed] = useState(false);
  const image = member.profileImage && !failed ? api.resolve(member.profileImage) : null;
  const bio = excerpt(member.bio);
  return (
    <li class="item" part="item" data-usertag={member.usertag}>
      {image ? (
        <img
          class="avatar"
          part="avatar"
          src={image}
          alt=""
          loading="lazy"
          decoding="async"
          width={56}
          height={56}
          onError={() => setFailed(true)}
        />
      ) : (
        <span class="avatar initials" part="avatar initials" aria-hidden="true">
          {initials(member.name, locale)}
        </span>
      )}
      <div class="body">
        <a class="name" part="link name" href={href} onClick={(click) => onSelect(member, click)}>
          {member.name}
        </a>
        <p class="usertag" part="usertag">
          @{member.usertag}
        </p>
        {bio && (
          <p class="bio" part="bio">
            {bio}
          </p>
        )}
        <p class="joined" part="joined">
          Joined <time dateTime={member.joinedAt}>{formatJoined(member.joinedAt, locale)}</time>
        </p>
      </div>
    </li>
  );
}
