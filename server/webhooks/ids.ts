// Public ids of the outbox: `evt_` and `del_` with a time-ordered UUIDv7 in hex, so ids sort by
// creation and a delivery id reads as what it is in a receiver's logs.
import { newId } from '../db/ids.ts';

const hex = (): string => newId().replaceAll('-', '');
export const newEventId = (): string => `evt_${hex()}`;
export const newDeliveryId = (): string => `del_${hex()}`;
