import type { ActiveSurge } from '../contract/surges.js';
import type { SurgeCounter, SurgeScope } from './ports.js';
import { isSurging, tallyOf } from './surge-window.js';

/** How many example inquiries the insights page shows per surge. */
export const SURGE_EXAMPLES_SHOWN = 3;

/**
 * The insights page's active surges (ADR 0033): every topic at or over `minStaff` distinct staff
 * within the window ending now, most staff first, with its count per slice and a few scrubbed
 * examples. One query of the tenant's surge partition.
 */
export async function readActiveSurges(
  counter: Pick<SurgeCounter, 'listTopics'>,
  scope: SurgeScope,
  now: Date,
  settings: { readonly minStaff: number; readonly windowMinutes: number },
): Promise<ActiveSurge[]> {
  const topics = await counter.listTopics(scope, now, settings.windowMinutes);
  return topics
    .map((state) => ({ state, tally: tallyOf(state, now, settings.windowMinutes) }))
    .filter(({ tally }) => isSurging(tally, settings.minStaff))
    .sort((a, b) => b.tally.staff - a.tally.staff || b.tally.inquiries - a.tally.inquiries)
    .map(({ state, tally }) => ({
      topicKey: state.topicKey,
      topic: state.label,
      inquiries: tally.inquiries,
      staff: tally.staff,
      since: tally.since ?? now.toISOString(),
      slices: [...tally.perSlice],
      examples: tally.examples.slice(-SURGE_EXAMPLES_SHOWN),
    }));
}
