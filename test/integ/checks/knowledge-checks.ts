import { randomBytes } from 'node:crypto';
import { ALL_DESK } from '../../../functions/contract/desks.js';
import { eventsNamed, streamChat } from '../streamed-chat.js';
import { chatProblem, type SuiteSession } from '../suite-session.js';
import type { CheckOutcome } from './streaming-checks.js';

/**
 * Knowledge capture end to end on the target (ADR 0011): the suite's user is a knowledge
 * editor; a solved inquiry is drafted (streamed) and published with a unique marker; the ticket
 * becomes retrievable within the target's sync time; a new question retrieves and cites it; the
 * ticket is removed again (document, sidecar, sync) whatever happened.
 */

/** A question the model answers with results (not a clarification) on the seed tickets. */
const SOURCE_QUESTION = 'プリンターで印刷すると白紙が出てきます。トナーは交換済みです。';
const POLL_MS = 5000;

export async function knowledgeCaptureCheck(session: SuiteSession): Promise<CheckOutcome> {
  const { target } = session;
  const knowledge = target.knowledge;
  if (!knowledge) throw new Error('the target offers no knowledge capture');
  const problems: string[] = [];
  const figures: Record<string, string | number | boolean | null> = {};

  const me = await target.api('GET', 'me');
  const caller = (await me.json().catch(() => ({}))) as { canPublishKnowledge?: boolean };
  if (me.status !== 200 || caller.canPublishKnowledge !== true) {
    return fail(
      `GET /api/me → ${me.status}, canPublishKnowledge ${caller.canPublishKnowledge}: the suite's user is no knowledge editor`,
      figures,
    );
  }

  const source = await session.send('knowledge source', { message: SOURCE_QUESTION });
  const sourceProblem = chatProblem(source);
  if (sourceProblem) return fail(sourceProblem, figures);
  const { conversationId, inquiryId } = source.answer;
  if (source.answer.result?.response_type !== 'results' || !conversationId || !inquiryId) {
    return fail('the source question was not answered with results (nothing to capture)', figures);
  }

  const drafted = await streamChat(
    target.api,
    {},
    `conversations/${conversationId}/inquiries/${inquiryId}/knowledge-draft`,
  );
  const [draft] = eventsNamed(drafted, 'draft') as {
    subject: string;
    category?: string;
    inquiry: string;
    resolution: string[];
    complete: boolean;
  }[];
  figures.draftStatus = drafted.status;
  figures.draftFirstTextMs =
    drafted.events.find((event) => event.event === 'draft_text')?.atMs ?? null;
  figures.draftSteps = eventsNamed(drafted, 'draft_step').length;
  figures.draftReads = drafted.reads.length;
  figures.draftComplete = draft?.complete ?? null;
  if (drafted.status !== 200 || !draft) {
    return fail(
      `the draft stream → ${drafted.status} ${drafted.errorBody}, no draft event`,
      figures,
    );
  }
  if (!draft.complete) problems.push('the draft was not complete (a field would not publish)');

  // A marker no seed ticket contains: retrieval of it can only come from this ticket.
  const marker = `kcprobe${randomBytes(4).toString('hex')}`;
  const subject = `${draft.subject.slice(0, 150)} ${marker}`;
  const published = await target.api(
    'POST',
    'knowledge',
    JSON.stringify({
      conversationId,
      inquiryId,
      subject,
      category: draft.category ?? 'Printer',
      inquiry: `${draft.inquiry}\n\n(${marker}: acceptance-suite probe, removed after the run)`,
      resolution: draft.resolution.length > 0 ? draft.resolution : ['—'],
      restricted: false,
    }),
  );
  const body = (await published.json().catch(() => ({}))) as {
    issueId?: string;
    ingestion?: string;
  };
  figures.publishStatus = published.status;
  figures.ingestion = body.ingestion ?? null;
  const { issueId } = body;
  if (published.status !== 201 || !issueId) {
    return fail(`POST /api/knowledge → ${published.status} ${JSON.stringify(body)}`, figures);
  }
  figures.issueId = issueId;

  try {
    const started = performance.now();
    let found = false;
    while (!found && performance.now() - started < knowledge.searchableWithinMs) {
      const hits = await target.retriever.search(subject, {
        limit: 8,
        desks: [ALL_DESK],
        signal: AbortSignal.timeout(30_000),
      });
      found = hits.some((hit) => hit.issueId === issueId);
      if (!found) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    figures.searchableAfterSeconds = found
      ? Number(((performance.now() - started) / 1000).toFixed(1))
      : null;
    if (!found) {
      problems.push(
        `#${issueId} was not retrievable within ${knowledge.searchableWithinMs / 1000} s of publishing`,
      );
    } else {
      const asked = await session.send('knowledge retrieved', { message: subject });
      const askedProblem = chatProblem(asked);
      if (askedProblem) problems.push(askedProblem);
      figures.retrievedInChat = asked.answer.retrievedIds.includes(issueId);
      figures.citedInChat = asked.answer.cardIds.includes(issueId);
      if (!figures.retrievedInChat) problems.push(`the new question did not retrieve #${issueId}`);
      if (!figures.citedInChat) problems.push(`the new answer did not cite #${issueId}`);
    }
  } finally {
    figures.removal = await knowledge
      .removePublished(issueId)
      .catch(
        (error: unknown) => `failed: ${error instanceof Error ? error.message : String(error)}`,
      );
  }
  if (String(figures.removal).startsWith('failed'))
    problems.push(`removing #${issueId} ${figures.removal}`);

  return problems.length === 0
    ? {
        status: 'pass',
        summary: `drafted (${figures.draftSteps} steps streamed), published #${issueId}, retrievable after ${figures.searchableAfterSeconds} s, retrieved and cited by a new question, removed (${figures.removal})`,
        figures,
        details: [],
      }
    : { status: 'fail', summary: problems[0] ?? '', figures, details: problems };
}

function fail(summary: string, figures: CheckOutcome['figures']): CheckOutcome {
  return { status: 'fail', summary, figures, details: [] };
}
