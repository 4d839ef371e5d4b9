import { ticketCategorySet } from '../contract/knowledge.js';
import type { KnowledgeDocuments } from './ports.js';

/**
 * The categories a published ticket may take (ADR 0020): the deployed tickets' set, computed at
 * synth (`TICKET_CATEGORIES`), together with the sets of tickets uploaded since
 * (`npm run import -- --upload`), so a source's own categories reach the knowledge form without a
 * deploy. Read from the document bucket at most once per `refreshMs` per container; a read that
 * fails keeps what was known (the deployed set at first) and is tried again at the next refresh.
 */
export interface TicketCategories {
  /** The current set, through `ticketCategorySet` (sanitized, one per spelling, bounded, sorted). */
  current(): Promise<readonly string[]>;
}

/** How long a container trusts the uploaded sets it read: an upload shows within this. */
export const UPLOADED_CATEGORIES_REFRESH_MS = 5 * 60_000;

/**
 * @example
 * const categories = createTicketCategories({ deployed: ['VPN'], documents, now: () => new Date() });
 * await categories.current(); // ['VPN', 'network', 'inquiry'] after a ServiceNow upload
 */
export function createTicketCategories(options: {
  readonly deployed: readonly string[];
  /** Absent where capture is off: the deployed set only. */
  readonly documents?: Pick<KnowledgeDocuments, 'uploadedCategories'>;
  readonly now: () => Date;
  readonly refreshMs?: number;
  readonly onReadFailed?: (error: unknown) => void;
}): TicketCategories {
  const deployed = ticketCategorySet(options.deployed);
  const { documents } = options;
  if (!documents) return { current: async () => deployed };
  const refreshMs = options.refreshMs ?? UPLOADED_CATEGORIES_REFRESH_MS;
  let known: readonly string[] = deployed;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<readonly string[]> | undefined;
  const refresh = async () => {
    try {
      const uploaded = await documents.uploadedCategories();
      // A deployment that knows no set takes any safe category: uploads do not narrow it.
      known = deployed.length === 0 ? deployed : ticketCategorySet([...deployed, ...uploaded]);
    } catch (error) {
      options.onReadFailed?.(error);
    }
    readAt = options.now().getTime();
    return known;
  };
  return {
    async current() {
      if (options.now().getTime() - readAt < refreshMs) return known;
      // Concurrent requests share one read.
      reading ??= refresh().finally(() => {
        reading = undefined;
      });
      return reading;
    },
  };
}
