import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ticketCategorySet } from '../functions/contract/knowledge.js';

/** What marks a ticket in a folder: its `.metadata.json` sidecar beside `<id>.md`. */
const SIDECAR_SUFFIX = '.md.metadata.json';

/**
 * The sidecars (`<id>.md.metadata.json`) of a ticket folder, sub-folders included, as paths.
 *
 * @throws Error naming the folder when it does not exist, is not a folder or holds no ticket.
 */
export function ticketSidecarsOf(directory: string): string[] {
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new Error(`Ticket folder not found: ${directory} is not a directory.`);
  }
  const sidecars = readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(SIDECAR_SUFFIX))
    .sort()
    .map((name) => join(directory, name));
  if (sidecars.length === 0) {
    throw new Error(
      `No tickets in ${directory}: expected <id>.md documents with <id>.md.metadata.json sidecars (the format of data/tickets).`,
    );
  }
  return sidecars;
}

/**
 * The category set of a folder of tickets (ADR 0020): every sidecar's `category` attribute
 * through {@link ticketCategorySet} (sanitized as untrusted text, one per category ignoring case,
 * the most frequent, sorted). What the stack gives the function at synth (`TICKET_CATEGORIES`),
 * what the local stack serves, and what `npm run import --upload` can compute for its folder.
 *
 * @throws Error naming the folder when it holds no ticket, or the sidecar that is not JSON.
 * @example
 * readTicketCategories('data/tickets'); // ['Account', 'Box', …, 'Zoom']
 */
export function readTicketCategories(directory: string): string[] {
  return ticketCategorySet(
    ticketSidecarsOf(directory).map((path) => {
      let sidecar: unknown;
      try {
        sidecar = JSON.parse(readFileSync(path, 'utf8'));
      } catch (error) {
        throw new Error(`${path} is not a JSON sidecar: ${(error as Error).message}`);
      }
      return (sidecar as { metadataAttributes?: { category?: unknown } } | null)?.metadataAttributes
        ?.category;
    }),
  );
}
