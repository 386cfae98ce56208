// {site_base}/api/users/me* and /api/messaging: what a signed-in visitor reads and changes about
// themselves. Private fields (e-mail, phone) appear only here, to their owner.
import { z } from 'zod';
import { route, type RouteDef } from '../route.ts';

/** The signed-in user as they see themselves: the only place their e-mail and phone are returned. */
export const Me = z
  .object({
    id: z.string(),
    usertag: z.string(),
    name: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    profileImage: z.string().nullable(),
    bio: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Me' });

export const getMe = route({
  operationId: 'getMe',
  method: 'get',
  path: '/api/users/me',
  tag: 'Community site',
  summary: 'The signed-in visitor',
  description: 'Served on `{site_base}` with the sign-in cookie (or `Authorization: Bearer`). The only route that returns the user\'s own e-mail and phone.',
  auth: { kind: 'session' },
  response: { status: 200, schema: Me, description: 'The signed-in user' },
  errors: [401, 429],
});

export const UpdateMe = z
  .object({
    name: z.string().trim().min(1).max(100),
    bio: z.string().max(1000).nullable(),
    profileImage: z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2048).nullable(),
  })
  .partial()
  .strict()
  .meta({ id: 'UpdateMe' });

export const updateMe = route({
  operationId: 'updateMe',
  method: 'patch',
  path: '/api/users/me',
  tag: 'Community site',
  summary: 'Change the signed-in visitor\'s public profile',
  description: 'Name, bio and profile image; fields left out stay as they are. With the cookie, only from the site\'s own pages.',
  auth: { kind: 'session' },
  body: UpdateMe,
  response: { status: 200, schema: Me, description: 'The updated user' },
  errors: [400, 401, 403, 429],
});

/** Every visitor route, in the order the OpenAPI document lists them. */
export const VISITOR_ROUTES: RouteDef[] = [getMe, updateMe];
