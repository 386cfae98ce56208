import type { Event } from '../../contract/resources.ts';
import type { ApiClient } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import { FORMAT_LABEL, locationLabel, priceSummary } from './summary.ts';

export interface EventCardProps {
  event: Event;
  href: string;
  locale: string | undefined;
  api: ApiClient;
  onSelect(event: Event, click: MouseEvent): void;
}

/**
 * One event. Only the name is the link (so a screen reader's links list reads as event names,
 * not as paragraphs); its ::after stretches over the whole card so all of it is clickable.
 */
export function EventCard({ event, href, locale, api, onSelect }: EventCardProps) {
  const place = locationLabel(event);
  const price = priceSummary(event.tiers, locale);
  return (
    <li class="item" part="item" data-slug={event.slug}>
      {event.bannerUrl && (
        // Decorative: the same card names the event right below, so alt text would read twice.
        <img
          class="banner"
          part="banner"
          src={api.resolve(event.bannerUrl)}
          alt=""
          loading="lazy"
          decoding="async"
          width={640}
          height={320}
          onError={(e) => {
            (e.currentTarget as HTMLImageElement).hidden = true;
          }}
        />
      )}
      <div class="body">
        <a class="name" part="link name" href={href} onClick={(click) => onSelect(event, click)}>
          {event.name}
        </a>
        <p class="date" part="date">
          <time dateTime={event.startDate}>{formatDateTime(event.startDate, locale)}</time>
        </p>
        <p class="meta">
          <span class={`badge ${event.format}`} part={`badge badge-${event.format}`}>
            {FORMAT_LABEL[event.format]}
          </span>
          {place && (
            <span class="location" part="location">
              {place}
            </span>
          )}
        </p>
        {price && (
          <p class="price" part="price">
            {price}
          </p>
        )}
      </div>
    </li>
  );
}
