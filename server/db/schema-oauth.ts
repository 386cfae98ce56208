// Table types of migration 0006_oauth_identities (see server/db/schema.ts for the storage conventions).

export interface OAuthIdentitiesTable {
  id: string;
  /** `google`, `slack` or `discord`. */
  provider: string;
  /** The provider's stable user id (`sub`; Discord's `id`). */
  subject: string;
  user_id: string;
  /** What the provider reported when the identity was linked; informational, never matched on. */
  email: string | null;
  created_at: string;
}

export interface OAuthHandoffsTable {
  /** sha256 (base64url) of the single-use code; the code itself is never stored. */
  code_hash: string;
  /** The only origin the code can be redeemed on. */
  origin: string;
  /** sha256 (base64url) of the binding cookie the flow's browser holds on that origin. */
  bind_hash: string;
  return_to: string;
  provider: string;
  subject: string;
  email: string | null;
  email_verified: number;
  name: string | null;
  link_user_id: string | null;
  created_at: string;
  expires_at: string;
}

export interface OAuthTables {
  oauth_identities: OAuthIdentitiesTable;
  oauth_handoffs: OAuthHandoffsTable;
}
