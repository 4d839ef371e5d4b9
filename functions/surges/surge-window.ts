/**
 * The sliding window of a surge (ADR 0033), as pure arithmetic over what one topic's item holds.
 * The window is cut into `SLICES_PER_WINDOW` slices of equal length, numbered from the epoch; a
 * slice keeps the set of (hashed) inquiries and staff that arrived in it, when its first one did,
 * and at most one scrubbed example. A count covers the current slice and the ones before it
 * within the window, so it spans between five sixths of the window and the whole of it — never
 * more — and what arrived in it is counted exactly: sets, not counters, so a retry or a
 * regenerate of the same inquiry counts once and concurrent chats all count.
 *
 * The adapter stores a slice as attributes of the topic's item and returns the item as it was
 * before an inquiry's update (`ALL_OLD`); {@link withInquiry} adds the inquiry here, so the
 * caller knows both sides of its own update — whether it started the surge — without a read. An
 * update keeps only the slices still within the window, so an item never holds more than one
 * window's worth.
 */

export const SLICES_PER_WINDOW = 6;

/** One slice of a topic's window. */
export interface SurgeSlice {
  /** The slice's number: whole slice lengths since the epoch. */
  readonly slice: number;
  readonly inquiries: ReadonlySet<string>;
  readonly staff: ReadonlySet<string>;
  /** When its first inquiry arrived (ISO). */
  readonly firstAt: string;
  /** One of its inquiries, scrubbed (leads only); absent when examples are off. */
  readonly example?: string;
}

/** What a topic's item holds: its label and its slices (older ones may linger until removed). */
export interface SurgeState {
  readonly topicKey: string;
  /** The topic as staff read it (its first key term). */
  readonly label: string;
  readonly slices: readonly SurgeSlice[];
}

/** One inquiry to count: opaque hashes only, never a user id or the text itself. */
export interface SurgeMark {
  readonly topicKey: string;
  readonly label: string;
  readonly inquiryHash: string;
  readonly staffHash: string;
  readonly at: Date;
  /** Scrubbed text, kept as the slice's example when it has none. */
  readonly example?: string;
}

/** Counts of a topic within the window ending now. */
export interface SurgeTally {
  readonly inquiries: number;
  readonly staff: number;
  /** The first inquiry of the window (ISO); undefined when nothing is in it. */
  readonly since?: string;
  /** Inquiries per slice of the window, oldest first (empty slices included). */
  readonly perSlice: readonly { readonly at: string; readonly inquiries: number }[];
  readonly examples: readonly string[];
}

export const sliceLengthMs = (windowMinutes: number) =>
  (windowMinutes * 60_000) / SLICES_PER_WINDOW;

export const sliceOf = (at: Date, windowMinutes: number) =>
  Math.floor(at.getTime() / sliceLengthMs(windowMinutes));

/** The slices an update at `current` removes: those that just left the window, a window's worth. */
export function expiredSlices(current: number): number[] {
  return Array.from(
    { length: SLICES_PER_WINDOW },
    (_, index) => current - SLICES_PER_WINDOW - index,
  );
}

/** The state after adding `mark` (what the store's update did, computed from the state before). */
export function withInquiry(
  before: SurgeState,
  mark: SurgeMark,
  windowMinutes: number,
): SurgeState {
  const current = sliceOf(mark.at, windowMinutes);
  const existing = before.slices.find((slice) => slice.slice === current);
  const updated: SurgeSlice = {
    slice: current,
    inquiries: new Set([...(existing?.inquiries ?? []), mark.inquiryHash]),
    staff: new Set([...(existing?.staff ?? []), mark.staffHash]),
    firstAt: existing?.firstAt ?? mark.at.toISOString(),
    ...((existing?.example ?? mark.example) !== undefined
      ? { example: existing?.example ?? mark.example }
      : {}),
  };
  return {
    topicKey: mark.topicKey,
    label: before.label || mark.label,
    slices: [
      ...before.slices.filter(
        (slice) => slice.slice !== current && slice.slice > current - SLICES_PER_WINDOW,
      ),
      updated,
    ].sort((a, b) => a.slice - b.slice),
  };
}

/** The topic's counts within the window ending at `now`. */
export function tallyOf(state: SurgeState, now: Date, windowMinutes: number): SurgeTally {
  const current = sliceOf(now, windowMinutes);
  const length = sliceLengthMs(windowMinutes);
  const inWindow = state.slices
    .filter((slice) => slice.slice > current - SLICES_PER_WINDOW && slice.slice <= current)
    .sort((a, b) => a.slice - b.slice);
  const inquiries = new Set(inWindow.flatMap((slice) => [...slice.inquiries]));
  const staff = new Set(inWindow.flatMap((slice) => [...slice.staff]));
  const perSlice = Array.from({ length: SLICES_PER_WINDOW }, (_, index) => {
    const number = current - SLICES_PER_WINDOW + 1 + index;
    const slice = inWindow.find((candidate) => candidate.slice === number);
    return { at: new Date(number * length).toISOString(), inquiries: slice?.inquiries.size ?? 0 };
  });
  return {
    inquiries: inquiries.size,
    staff: staff.size,
    ...(inWindow[0] ? { since: inWindow[0].firstAt } : {}),
    perSlice,
    examples: inWindow.flatMap((slice) => (slice.example ? [slice.example] : [])),
  };
}

/** A topic surges while at least `minStaff` distinct staff asked about it within the window. */
export const isSurging = (tally: SurgeTally, minStaff: number) => tally.staff >= minStaff;
