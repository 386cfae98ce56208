import type { Tier } from '../../contract/resources.ts';
import { availability, availabilityLabel, priceLabel } from './tiers.ts';

export interface TierPickerProps {
  legend: string;
  tiers: readonly Tier[];
  selected: string | null;
  locale: string | undefined;
  onSelect(tier: Tier): void;
}

/**
 * The tiers as a native radio group: arrow keys move between the tiers that can be chosen, Tab
 * leaves the group, and a sold-out or closed tier is a disabled radio, shown but not choosable.
 */
export function TierPicker({ legend, tiers, selected, locale, onSelect }: TierPickerProps) {
  return (
    <fieldset class="tiers" part="tiers">
      <legend class="legend" part="legend">
        {legend}
      </legend>
      {tiers.map((tier) => {
        const state = availability(tier).kind;
        const note = availabilityLabel(tier, locale);
        return (
          <label
            class={`tier ${state}`}
            part={`tier tier-${state.replace('_', '-')}`}
            key={tier.id}
            data-tier={tier.id}
          >
            <input
              type="radio"
              // `tierId`: what the form posts without JavaScript; the group is the widget's own (its form).
              name="tierId"
              value={tier.id}
              checked={selected === tier.id}
              disabled={state !== 'open'}
              onChange={() => onSelect(tier)}
            />
            <span class="tier-name" part="tier-name">
              {tier.name}
            </span>
            <span class="tier-price" part="tier-price">
              {priceLabel(tier, locale)}
            </span>
            {/* "9 left" is English starting with a number: isolated, it does not read "left 9" on an RTL page. */}
            {note && (
              <span dir="auto" class="tier-left" part={state === 'open' ? 'tier-left' : 'tier-unavailable'}>
                {note}
              </span>
            )}
          </label>
        );
      })}
    </fieldset>
  );
}
