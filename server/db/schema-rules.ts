// Table types of migration 0009_rules (see server/db/schema.ts for the storage conventions).

export interface RulesAcceptancesTable {
  community_id: string;
  user_id: string;
  /** The community's rules_version the member accepted. */
  rules_version: number;
  /** The first acceptance of this version; repeating it does not move this. */
  accepted_at: string;
}

export interface RulesTables {
  rules_acceptances: RulesAcceptancesTable;
}
