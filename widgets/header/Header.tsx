import type { JSX } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../lib/api.ts';
import { $community, siteOrigin } from '../lib/community.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { plainClick } from '../lib/host-events.ts';
import { fillTemplate } from '../lib/link-template.ts';
import { isRecord, NEW_TAB, resolveHref, text } from '../lib/links.ts';
import { $session, loadSession, signInUrl, signOut, type SessionUser } from '../lib/session.ts';
import { storeSignal } from '../lib/store-signal.ts';
import { badgeText, bellLabel, unreadCount } from './bell.ts';
import { Dropdown } from './Dropdown.tsx';
import { BellIcon, Chevron, MenuIcon, UserIcon } from './icons.tsx';
import { barKey } from './keys.ts';
import { headerLook } from './look.ts';
import { navEntries, type NavLink } from './nav.ts';

/** The item's iconKey as an extra part (`icon-calendar`), so the host page can draw icons with ::part(). */
const iconPart = (part: string, icon: string | null) => (icon && /^[\w-]+$/.test(icon) ? `${part} icon-${icon}` : part);

const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0])
    .join('')
    .toUpperCase();

export interface NavigateDetail {
  href: string;
  label: string;
  external: boolean;
}

export function Header({ api, config, attrs, emit, state }: WidgetProps) {
  useEffect(() => loadSession(api, config), []);
  const community = storeSignal($community).value;
  const user = storeSignal($session).value;
  const [menuOpen, setMenuOpen] = useState(false);
  const navId = `svc-nav-${useId()}`;
  const menuButton = useRef<HTMLButtonElement>(null);
  const actions = useRef<HTMLDivElement>(null);
  // Signing out removes the focused "Sign out" button: focus goes to "Sign in" in its place.
  const focusSignIn = useRef(false);
  useEffect(() => {
    if (user !== null || !focusSignIn.current) return;
    focusSignIn.current = false;
    actions.current?.querySelector<HTMLElement>('[part~="sign-in"]')?.focus();
  }, [user]);

  const ready = community.status === 'ready' ? community.community : null;
  const look = headerLook(ready?.storefrontConfig.header);
  const unread = useUnread(
    api,
    config.hosted && look.showBell ? user : null,
    (state as { unread?: number } | undefined)?.unread,
  );

  // landmarks="none": placed inside the page's own <header> (a block theme's header template
  // part), where a second banner would nest; a plain <div> then, and the nav stays labelled.
  const Root = attrs.landmarks === 'none' ? 'div' : 'header';

  // The customer's fallback (light DOM) stays up until the community arrives, and if it fails.
  if (!ready) {
    return (
      <Root class="hdr" part="header" aria-busy={community.status === 'error' ? undefined : 'true'}>
        <div class="bar" part="bar">
          <slot />
        </div>
      </Root>
    );
  }

  const header = isRecord(ready.storefrontConfig.header) ? ready.storefrontConfig.header : {};
  const site = siteOrigin(config, ready, location.origin);
  // Site-relative links (and `current`, a path of the community's site) through `site-href`.
  const siteHref = attrs['site-href'];
  const here = (attrs.current && resolveHref(attrs.current, site, siteHref)) || location.href;
  const entries = navEntries(ready.storefrontConfig.nav, site, here, siteHref);
  const { variants } = look;
  const name = text(header.storeName) ?? ready.name;
  const logo = resolveHref(header.logoUrl, api.resolve('/').replace(/\/$/, ''));

  const follow = (link: NavLink) => (e: MouseEvent) => {
    if (!plainClick(e)) return;
    const detail: NavigateDetail = { href: link.href, label: link.label, external: link.external };
    if (!emit('navigate', detail, true)) e.preventDefault();
    setMenuOpen(false);
  };
  const linkProps = (link: NavLink, cls: string, part: string): JSX.AnchorHTMLAttributes<HTMLAnchorElement> => ({
    class: cls,
    part,
    href: link.href,
    'aria-current': link.current ? 'page' : undefined,
    onClick: follow(link),
    ...(link.external ? NEW_TAB : {}),
  });

  const onNavKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && menuOpen) {
      setMenuOpen(false);
      menuButton.current?.focus();
      return;
    }
    const tops = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('[data-top]')];
    const next = barKey(e.key, tops.indexOf(e.target as HTMLElement), tops.length);
    if (next === null) return;
    e.preventDefault();
    tops[next].focus();
  };

  return (
    <Root class={`hdr ${look.classes}`} part="header" style={look.vars}>
      <div class="bar" part="bar">
        {entries.length > 0 && (
          <button
            type="button"
            ref={menuButton}
            class="icon-btn menu-btn"
            part="menu-button"
            aria-expanded={menuOpen ? 'true' : 'false'}
            aria-controls={navId}
            onClick={() => setMenuOpen(!menuOpen)}
          >
            <MenuIcon />
            <span class="visually-hidden">Menu</span>
          </button>
        )}
        <a class="brand" part="brand" href={fillTemplate('site-href', siteHref, { path: '/' }) ?? `${site}/`}>
          {logo && variants.logoLockup !== 'text' && (
            <img class="logo" part="logo" src={logo} alt={variants.logoLockup === 'logo' ? name : ''} />
          )}
          {(!logo || variants.logoLockup !== 'logo') && (
            <span class="name" part="name">
              {name}
            </span>
          )}
        </a>
        {entries.length > 0 && (
          <nav id={navId} class={menuOpen ? 'nav open' : 'nav'} part="nav" aria-label={name} onKeyDown={onNavKey}>
            <ul class="list" part="nav-list">
              {entries.map((entry, i) => (
                <li key={i} class="item" part="nav-item">
                  {entry.kind === 'link' ? (
                    <a {...linkProps(entry, 'link', iconPart('nav-link', entry.icon))} data-top="">
                      {entry.label}
                    </a>
                  ) : (
                    <Dropdown
                      top
                      label={
                        <>
                          {entry.label}
                          <Chevron />
                        </>
                      }
                      triggerClass={entry.current ? 'link trigger current' : 'link trigger'}
                      triggerPart={iconPart('nav-link dropdown-trigger', entry.icon)}
                      panelPart="dropdown"
                    >
                      {entry.children.map((child, j) => (
                        <li key={j}>
                          <a {...linkProps(child, 'pop-item', iconPart('dropdown-link', child.icon))}>
                            {child.label}
                            {child.external && <span class="visually-hidden"> (opens in a new tab)</span>}
                          </a>
                        </li>
                      ))}
                    </Dropdown>
                  )}
                </li>
              ))}
            </ul>
          </nav>
        )}
        <div class="actions" part="actions" ref={actions}>
          {user && unread !== null && look.showBell && (
            <a class="icon-btn bell" part="bell" href={`${site}/notifications`} aria-label={bellLabel(unread)}>
              <BellIcon />
              {unread > 0 && (
                <span class="count" part="bell-count" aria-hidden="true">
                  {badgeText(unread)}
                </span>
              )}
            </a>
          )}
          {user ? (
            <UserMenu
              user={user}
              api={api}
              emit={emit}
              onSignedOut={() => {
                focusSignIn.current = true;
              }}
            />
          ) : user === null ? (
            <SignIn url={signInUrl(site, location.href)} style={variants.signInStyle} emit={emit} />
          ) : null}
        </div>
      </div>
    </Root>
  );
}

function SignIn({ url, style, emit }: { url: string; style: string; emit: WidgetProps['emit'] }) {
  return (
    <a
      class={`signin ${style === 'button' ? 'primary' : style === 'outline' ? 'secondary' : style === 'icon' ? 'icon-btn' : ''}`}
      part="sign-in"
      href={url}
      onClick={(e) => {
        if (plainClick(e) && !emit('sign-in', { url }, true)) e.preventDefault();
      }}
    >
      {style === 'icon' ? (
        <>
          <UserIcon />
          <span class="visually-hidden">Sign in</span>
        </>
      ) : (
        'Sign in'
      )}
    </a>
  );
}

interface UserMenuProps {
  user: SessionUser;
  api: WidgetProps['api'];
  emit: WidgetProps['emit'];
  onSignedOut(): void;
}

function UserMenu({ user, api, emit, onSignedOut }: UserMenuProps) {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const avatar = resolveHref(user.profileImage, api.resolve('/').replace(/\/$/, ''));
  const out = async () => {
    if (busy) return;
    setBusy(true);
    setFailed(false);
    try {
      await signOut();
      // Before the header re-renders without this menu (effects run after paint).
      onSignedOut();
      emit('sign-out', {});
    } catch (e) {
      const error = e as ApiError;
      setFailed(true);
      setBusy(false);
      emit('error', {
        action: 'sign-out',
        status: error.status,
        code: error.code,
        requestId: error.requestId,
        message: error.message,
      });
    }
  };
  return (
    <Dropdown
      label={
        <>
          {avatar ? (
            <img class="avatar" src={avatar} alt="" />
          ) : (
            <span class="avatar" aria-hidden="true">
              {initials(user.name)}
            </span>
          )}
          <span class="user-name">{user.name}</span>
          <Chevron />
        </>
      }
      triggerClass="link user"
      triggerPart="user"
      panelPart="user-menu"
      placement="bottom-end"
    >
      <li class="pop-note" part="user-tag">
        @{user.usertag}
      </li>
      <li>
        <button
          type="button"
          class="pop-item"
          part="sign-out"
          aria-busy={busy ? 'true' : undefined}
          onClick={() => void out()}
        >
          Sign out
        </button>
      </li>
      {failed && (
        <li class="pop-note pop-error" part="error" role="alert">
          Couldn't sign out. Please try again.
        </li>
      )}
    </Dropdown>
  );
}

/**
 * The unread count for the bell: fetched per signed-in user; null while unknown or on any error.
 * A server-rendered header starts from the server's count (`seed`), kept while it is fetched
 * again, so the bell is there from the first paint and does not pop in.
 */
function useUnread(api: WidgetProps['api'], user: SessionUser | null | undefined, seed?: number): number | null {
  const [count, setCount] = useState<number | null>(seed ?? null);
  const seeded = useRef(seed !== undefined);
  useEffect(() => {
    if (!seeded.current) setCount(null);
    seeded.current = false;
    if (!user) return;
    const abort = new AbortController();
    api
      .get<unknown>('/api/users/me/notifications/unread-count', { auth: false, fresh: true, signal: abort.signal })
      .then(
        ({ data }) => setCount(unreadCount(data)),
        () => {},
      );
    return () => abort.abort();
  }, [user?.id]);
  return count;
}
