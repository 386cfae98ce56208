// DonationError as the API's error, shared by the donate routes and the sidecar donations of
// ticket and product checkouts.
import { DonationError } from '../domain/donations.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';

export function donationApiError(err: DonationError, notFoundMessage: string = messages.donationTargetNotFound): never {
  switch (err.reason) {
    case 'target_not_found': throw notFound(notFoundMessage);
    case 'not_enabled': throw new ApiError('INVALID_INPUT', messages.donationsNotEnabled, { field: 'donation' });
    case 'not_a_listed_amount':
      throw new ApiError('INVALID_DONATION_AMOUNT', messages.donationNotListed(err.detail.amounts ?? []), { field: 'donation.amount', amounts: err.detail.amounts });
    case 'below_minimum':
      throw new ApiError('INVALID_DONATION_AMOUNT', messages.donationBelowMinimum(err.detail.minimum!), { field: 'donation.amount', minimum: err.detail.minimum });
    case 'email_required': throw new ApiError('INVALID_INPUT', messages.donorEmailRequired, { field: 'customer.email' });
    case 'currency_mismatch': throw new ApiError('INVALID_INPUT', messages.donationCurrencyMismatch(err.detail.currency ?? ''), { field: 'donation' });
  }
}

export { DonationError };
