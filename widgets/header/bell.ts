// The bell's unread count, from `GET /api/users/me/notifications/unread-count` (`{count}`).
// Anything else is no count, and the bell is not shown.

export function unreadCount(data: unknown): number | null {
  const count = typeof data === 'object' && data !== null ? (data as { count?: unknown }).count : undefined;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : null;
}

/** What the badge says: nothing at zero, "99+" past 99. */
export const badgeText = (count: number): string => (count > 99 ? '99+' : count > 0 ? String(count) : '');

/** What a screen reader hears for the bell. */
export const bellLabel = (count: number): string => (count === 0 ? 'Notifications' : `Notifications, ${count} unread`);
