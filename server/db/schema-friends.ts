// Table types of migration 0011_friend_request_cooldowns (storage conventions: server/db/schema.ts).

export interface FriendRequestRejectionsTable {
  /** Who asked. */
  requester_id: string;
  /** Who said no. */
  addressee_id: string;
  /** The latest rejection; the requester may ask again once FRIEND_REQUEST_COOLDOWN_MS has passed. */
  rejected_at: string;
}

export interface FriendTables {
  friend_request_rejections: FriendRequestRejectionsTable;
}
