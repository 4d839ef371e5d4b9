import type { Bubble, UserBubble } from './bubble.js';

/**
 * Versions of a question (ADR 0010): a regenerated or edited message supersedes the latest user
 * turn, and the history keeps every version. The conversation shows one version of each question
 * — the newest unless staff browse back with ‹ › — with the answers that followed it.
 */

/** Where a shown question stands among its versions. */
export interface VersionPosition {
  /** Names the question across its versions: the id of its first version's bubble. */
  readonly chain: string;
  /** 0-based index of the version shown. */
  readonly index: number;
  readonly count: number;
}

export interface SelectedVersions {
  /** The bubbles to show: every question in the version chosen, with that version's answers. */
  readonly bubbles: readonly Bubble[];
  /** By user bubble id, for the questions that have more than one version. */
  readonly positions: ReadonlyMap<string, VersionPosition>;
}

/** One user bubble and the answers that followed it (a leading answer has no question). */
interface Exchange {
  readonly user?: UserBubble;
  readonly bubbles: Bubble[];
}

/**
 * The bubbles to show and each question's version position. `chosen` maps a chain to the version
 * index staff picked; a chain without one (or with an index it no longer has) shows its newest.
 * Versions are recognised by `supersedes` naming an earlier version's `seq`.
 */
export function selectVersions(
  bubbles: readonly Bubble[],
  chosen: Readonly<Record<string, number>> = {},
): SelectedVersions {
  const exchanges: Exchange[] = [];
  for (const bubble of bubbles) {
    if (bubble.kind === 'user' || exchanges.length === 0) {
      exchanges.push({ ...(bubble.kind === 'user' ? { user: bubble } : {}), bubbles: [] });
    }
    exchanges.at(-1)?.bubbles.push(bubble);
  }
  // Chains in order of their first version; each holds its versions in order.
  const chains = new Map<string, Exchange[]>();
  const chainOfSeq = new Map<number, string>();
  for (const exchange of exchanges) {
    const { user } = exchange;
    const earlier = user?.supersedes === undefined ? undefined : chainOfSeq.get(user.supersedes);
    const chain = earlier ?? user?.id ?? `leading-${chains.size}`;
    chains.set(chain, [...(chains.get(chain) ?? []), exchange]);
    if (user?.seq !== undefined) chainOfSeq.set(user.seq, chain);
  }
  const shown: Bubble[] = [];
  const positions = new Map<string, VersionPosition>();
  for (const [chain, versions] of chains) {
    const picked = chosen[chain];
    const index =
      picked !== undefined && picked >= 0 && picked < versions.length
        ? picked
        : versions.length - 1;
    const version = versions[index] as Exchange;
    shown.push(...version.bubbles);
    if (versions.length > 1 && version.user) {
      positions.set(version.user.id, { chain, index, count: versions.length });
    }
  }
  return { bubbles: shown, positions };
}
