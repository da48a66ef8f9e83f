/** The scopes a credential can carry (spec, Authentication 2). A signed-in person acts with every scope. */
export const SCOPES = ['read', 'write', 'recordings:publish', '*'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function grants(held: readonly string[], needed: Scope): boolean {
  return held.includes('*') || held.includes(needed);
}
