import type { Segment } from '../../contract/resources.ts';
import { foundingNote, summary } from './segments.ts';

export interface SegmentPickerProps {
  segments: readonly Segment[];
  selected: string | null;
  /** The radio group's name: unique per widget instance. */
  name: string;
  locale: string | undefined;
  onSelect(segment: Segment): void;
}

/** One segment's card content: name, price, founding spots, description. */
export function SegmentSummary({ segment, locale }: { segment: Segment; locale: string | undefined }) {
  const note = foundingNote(segment);
  return (
    <>
      <span class="segment-name" part="segment-name">
        {segment.name}
      </span>
      <span class="segment-price" part="segment-price">
        {summary(segment, locale)}
      </span>
      {note && (
        <span class="segment-founding" part="segment-founding">
          {note}
        </span>
      )}
      {segment.description && (
        <span class="segment-description" part="segment-description">
          {segment.description}
        </span>
      )}
    </>
  );
}

/** The public segments as a native radio group of cards: arrows move, Tab leaves the group. */
export function SegmentPicker({ segments, selected, name, locale, onSelect }: SegmentPickerProps) {
  return (
    <fieldset class="segments" part="segments">
      <legend class="legend" part="legend">
        Choose a membership
      </legend>
      {segments.map((segment) => (
        <label
          class="segment"
          part="segment"
          key={segment.id}
          data-segment={segment.id}
          style={{ '--_segment': segment.color }}
        >
          <input
            type="radio"
            name={name}
            value={segment.id}
            checked={selected === segment.id}
            onChange={() => onSelect(segment)}
          />
          <SegmentSummary segment={segment} locale={locale} />
        </label>
      ))}
    </fieldset>
  );
}
