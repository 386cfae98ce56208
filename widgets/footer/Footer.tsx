import { useId } from 'preact/hooks';
import { $community, siteOrigin } from '../lib/community.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { NEW_TAB } from '../lib/links.ts';
import { storeSignal } from '../lib/store-signal.ts';
import { footerModel, selectFooter, type FooterLink } from './select.ts';

const A = ({ link, part }: { link: FooterLink; part: string }) => (
  <a part={part} href={link.href} {...(link.external ? NEW_TAB : {})}>
    {link.label}
    {link.external && <span class="visually-hidden"> (opens in a new tab)</span>}
  </a>
);

export function Footer({ config, attrs }: WidgetProps) {
  const community = storeSignal($community).value;
  const id = `svc-ft-${useId()}`;
  // landmarks="none": inside the page's own <footer> (a block theme's footer template part).
  const Root = attrs.landmarks === 'none' ? 'div' : 'footer';
  // The customer's fallback (light DOM) stays up until the community arrives, and if it fails.
  if (community.status !== 'ready')
    return (
      <Root class="ftr" part="footer">
        <slot />
      </Root>
    );
  const block = selectFooter(community.community.storefrontConfig, attrs.route);
  if (!block) return null;
  const f = footerModel(block, siteOrigin(config, community.community, location.origin), attrs['site-href']);
  return (
    <Root class="ftr" part="footer">
      {f.title && (
        <p class="title" part="title">
          {f.title}
        </p>
      )}
      {f.columns.length > 0 && (
        <div class="cols" part="columns">
          {f.columns.map((c, i) => (
            <div key={i} class="col" part="column">
              {c.title && (
                <p class="col-title" part="column-title" id={`${id}-${i}`}>
                  {c.title}
                </p>
              )}
              <ul aria-labelledby={c.title ? `${id}-${i}` : undefined}>
                {c.links.map((l, j) => (
                  <li key={j}>
                    <A link={l} part="link" />
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      )}
      {f.social.length > 0 && (
        <ul class="social" part="social" aria-label="Social media">
          {f.social.map((s, i) => (
            <li key={i}>
              <A link={s} part={`social-link social-${s.network}`} />
            </li>
          ))}
        </ul>
      )}
      {f.copyright && (
        <p class="copy" part="copyright">
          {f.copyright}
        </p>
      )}
    </Root>
  );
}
