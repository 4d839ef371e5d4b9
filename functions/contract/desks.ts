import * as z from 'zod';

/**
 * Desks (issue #49, ADR 0029): each ticket belongs to one desk — `desk` in its `.metadata.json`
 * sidecar, a string — and a caller retrieves the tickets of the desks their roles grant plus
 * {@link ALL_DESK}. Shared by the function (both exits of retrieval, the knowledge form's
 * check), the importer (`--desk-when`) and the web app (the form's choice).
 */

/**
 * The desk of a ticket every staff member may retrieve, written when no rule names another. A
 * Knowledge Base filter cannot test a missing key, so every sidecar carries a desk and the
 * filter is `desk in ["all", …the caller's desks]`, which both vector stores accept.
 */
export const ALL_DESK = 'all';

/** The metadata key of a ticket's desk, in sidecars and retrieval filters. */
export const DESK_KEY = 'desk';

/**
 * A desk name: what role settings (`OIDC_DESK_ROLES`, functions/api/caller-roles.ts), import
 * rules and the form write. Compared exactly (the filter's `in` is exact): `hr` and `HR` are two
 * desks.
 */
export const DESK_NAME_PATTERN = /^[A-Za-z0-9._-]{1,40}$/;

export const deskNameSchema = z
  .string()
  .trim()
  .regex(DESK_NAME_PATTERN, 'a desk is 1-40 of A-Z a-z 0-9 . _ -');

/** The desks a caller may retrieve: theirs and {@link ALL_DESK}, once each, `all` first. */
export function retrievableDesks(callerDesks: readonly string[]): string[] {
  return [...new Set([ALL_DESK, ...callerDesks])];
}

/**
 * Whether a ticket of `desk` may reach a caller with `callerDesks`. A ticket without a desk
 * (a sidecar written before desks) reaches nobody, as the Knowledge Base filter treats it.
 */
export function deskAllowed(desk: string | undefined, callerDesks: readonly string[]): boolean {
  return desk !== undefined && (desk === ALL_DESK || callerDesks.includes(desk));
}
