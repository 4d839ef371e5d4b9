import * as z from 'zod';
import { ALL_DESK, DESK_NAME_PATTERN } from '../contract/desks.js';

/**
 * What a caller's roles grant: the role values of the identity provider's claim (Entra app
 * roles, Okta or Cognito groups, a custom claim) mapped to knowledge editing, insights and the
 * desks whose tickets the caller may retrieve (issue #49, ADR 0028).
 */

/** The desk every caller may retrieve: tickets no rule assigned to a desk (ADR 0029). */
export const ALL_DESKS = ALL_DESK;

/** A desk name as sidecars, filters and settings write it (one rule: contract/desks.ts). */
export const DESK_NAME = DESK_NAME_PATTERN;

/** One `<left>=<right>` pair of a mapping setting (`OIDC_DESK_ROLES`, `DEV_USER_ROLES`). */
export interface NamePair {
  readonly name: string;
  readonly value: string;
}

/** What the role claim's values mean in this deployment. */
export interface RoleRules {
  /** Values that make the caller a knowledge editor. */
  readonly editorRoles: readonly string[];
  /** Values that make the caller a service-desk lead. */
  readonly leadRoles: readonly string[];
  /** Role value → desk pairs; a role may grant several desks, a desk be granted by several roles. */
  readonly deskRoles: readonly NamePair[];
}

/**
 * The desks `roles` grant, always with {@link ALL_DESKS} first, each once.
 *
 * @example
 * desksForRoles(['HRDeskStaff'], [{ name: 'HRDeskStaff', value: 'hr' }]); // ['all', 'hr']
 */
export function desksForRoles(
  roles: readonly string[],
  deskRoles: readonly NamePair[],
): readonly string[] {
  const held = new Set(roles);
  const desks = new Set([ALL_DESKS]);
  for (const { name, value } of deskRoles) if (held.has(name)) desks.add(value);
  return [...desks];
}

/** Whether any of `roles` is one of `granting`. */
export const holdsAny = (roles: readonly string[], granting: readonly string[]): boolean =>
  roles.some((role) => granting.includes(role));

/**
 * The role values in a token's claims: `claim` is a claim name (`roles`, `cognito:groups`) or,
 * when no claim has that name, a dotted path into nested claims (`realm_access.roles`). An array
 * gives its strings; a string its space- or comma-separated values. `undefined`: no such claim.
 */
export function rolesFromClaims(
  claims: Readonly<Record<string, unknown>>,
  claim: string,
): readonly string[] | undefined {
  const value = claim in claims ? claims[claim] : claimAtPath(claims, claim.split('.'));
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value))
    return value.filter((role): role is string => typeof role === 'string' && role !== '');
  return undefined;
}

function claimAtPath(claims: unknown, path: readonly string[]): unknown {
  let current = claims;
  for (const step of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/**
 * A setting of `<name>=<value>` pairs, comma-separated (unset or empty: none); `valuePattern`
 * checks each value, and a malformed pair fails the config naming `variable`.
 */
export function namePairsSchema(variable: string, valuePattern: RegExp) {
  return z
    .string()
    .default('')
    .transform((list, context): NamePair[] => {
      const pairs: NamePair[] = [];
      for (const entry of list
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)) {
        const separator = entry.lastIndexOf('=');
        const name = entry.slice(0, separator).trim();
        const value = entry.slice(separator + 1).trim();
        if (separator <= 0 || name === '' || !valuePattern.test(value)) {
          context.addIssue({
            code: 'custom',
            message: `${variable}: "${entry}" is not <name>=<value> with a value of ${valuePattern.source}`,
          });
          continue;
        }
        pairs.push({ name, value });
      }
      return pairs;
    });
}

/** The pairs as their setting's text. */
export const formatNamePairs = (pairs: readonly NamePair[]): string =>
  pairs.map(({ name, value }) => `${name}=${value}`).join(',');
