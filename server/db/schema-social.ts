// Table types of migration 0004_social: notifications, friendships, conversations. Same storage
// conventions as schema.ts (UUIDv7 text ids, ISO 8601 UTC text timestamps, JSON as text).
import type { Generated } from 'kysely';

export interface NotificationsTable {
  id: string;
  user_id: string;
  community_id: string | null;
  actor_id: string | null;
  kind: string;
  /** JSON object. */
  data: string;
  read_at: string | null;
  created_at: string;
}

export interface FriendshipsTable {
  id: string;
  /** The pair ordered by id: (low, high) is unique, so A->B and B->A are one row. */
  user_low: string;
  user_high: string;
  requester_id: string;
  addressee_id: string;
  status: 'PENDING' | 'ACCEPTED';
  created_at: string;
  accepted_at: string | null;
}

export interface ConversationsTable {
  id: string;
  kind: 'direct' | 'group';
  /** `<low user id>:<high user id>` for direct conversations (unique), null for groups. */
  direct_key: string | null;
  created_by: string | null;
  last_seq: Generated<number>;
  last_message_id: string | null;
  last_activity_at: string;
  created_at: string;
}

export interface ConversationMembersTable {
  conversation_id: string;
  user_id: string;
  joined_at: string;
  last_read_seq: Generated<number>;
  last_read_at: string | null;
}

export interface MessagesTable {
  id: string;
  conversation_id: string;
  seq: number;
  sender_id: string | null;
  body: string;
  created_at: string;
}

export interface SocialTables {
  notifications: NotificationsTable;
  friendships: FriendshipsTable;
  conversations: ConversationsTable;
  conversation_members: ConversationMembersTable;
  messages: MessagesTable;
}
