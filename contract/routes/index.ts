// The route table: every operation of the public API and the site API, in document order.
import type { RouteDef } from '../route.ts';
import * as communities from './communities.ts';
import * as events from './events.ts';

export const ROUTES: RouteDef[] = [...Object.values(communities), ...Object.values(events)] as RouteDef[];
export { communities, events };
