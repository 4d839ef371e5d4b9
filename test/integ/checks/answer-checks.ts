import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  chatProblem,
  mapWithConcurrency,
  type SentChat,
  type SuiteSession,
} from '../suite-session.js';
import type { CheckOutcome } from './streaming-checks.js';

/**
 * What the answers say, with the real model and the real Knowledge Base: restricted tickets never
 * appear, every ticket card is a retrieved ticket, a second question in the same conversation
 * carries nothing of the first, and a clarification round trip continues its inquiry.
 */

export interface RestrictedTicket {
  readonly issueId: string;
  readonly subject: string;
}

/** The tickets marked `restricted` in their Knowledge Base metadata (data/tickets). */
export async function readRestrictedTickets(directory: string): Promise<RestrictedTicket[]> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.metadata.json'));
  const tickets: RestrictedTicket[] = [];
  for (const name of names.sort()) {
    const { metadataAttributes } = JSON.parse(await readFile(join(directory, name), 'utf8')) as {
      metadataAttributes: { issue_id: string; subject: string; restricted?: boolean };
    };
    if (metadataAttributes.restricted === true) {
      tickets.push({ issueId: metadataAttributes.issue_id, subject: metadataAttributes.subject });
    }
  }
  return tickets;
}

/** Restricted tickets a chat showed: as a retrieved chunk or a card, by number or by subject. */
function leaksOf(
  sent: SentChat,
  restricted: readonly RestrictedTicket[],
  options: { readonly textMayNameId?: string } = {},
): string[] {
  const { answer } = sent;
  const text = [
    answer.result?.general_advice ?? answer.advice,
    answer.result?.mail_draft ?? '',
    ...(answer.result?.todo_actions ?? []),
  ].join('\n');
  const leaks: string[] = [];
  for (const ticket of restricted) {
    if (answer.retrievedIds.includes(ticket.issueId)) leaks.push(`#${ticket.issueId} retrieved`);
    if (answer.cardIds.includes(ticket.issueId)) leaks.push(`#${ticket.issueId} as a card`);
    if ([...answer.retrievedSubjects, ...answer.cardSubjects].includes(ticket.subject)) {
      leaks.push(`#${ticket.issueId}'s subject in a chunk or card`);
    }
    // A number probe's answer may repeat the number it was asked about ("#1015 cannot be shown").
    if (
      options.textMayNameId !== ticket.issueId &&
      new RegExp(`(?<!\\d)${ticket.issueId}(?!\\d)`).test(text)
    ) {
      leaks.push(`#${ticket.issueId} named in the answer text`);
    }
  }
  return leaks.map((leak) => `${sent.label}: ${leak}`);
}

export async function restrictedTicketsCheck(
  session: SuiteSession,
  restricted: readonly RestrictedTicket[],
  options: { readonly probeLimit: number; readonly concurrency: number },
): Promise<CheckOutcome> {
  const probed = restricted.slice(0, options.probeLimit);
  const probes = probed.flatMap((ticket) => [
    { ticket, by: 'subject' as const, message: ticket.subject },
    {
      ticket,
      by: 'number' as const,
      message: `チケット#${ticket.issueId}の内容と対応方法を教えてください`,
    },
  ]);
  const sent = await mapWithConcurrency(probes, options.concurrency, (probe) =>
    session.send(`probe #${probe.ticket.issueId} by ${probe.by}`, { message: probe.message }),
  );
  const problems = sent.flatMap((chat) => chatProblem(chat) ?? []);
  const leaks = sent.flatMap((chat, index) =>
    leaksOf(chat, restricted, {
      textMayNameId: probes[index]?.by === 'number' ? probes[index]?.ticket.issueId : undefined,
    }),
  );
  // Every other chat of the run too: no restricted ticket anywhere.
  const elsewhere = session.chats
    .filter((chat) => !sent.includes(chat))
    .flatMap((chat) => leaksOf(chat, restricted));
  const figures = {
    restrictedTickets: restricted.length,
    probedTickets: probed.length,
    probes: probes.length,
    otherChatsChecked: session.chats.length - sent.length,
    leaks: leaks.length + elsewhere.length,
    failedProbes: problems.length,
  };
  const details = [...leaks, ...elsewhere, ...problems];
  if (leaks.length + elsewhere.length > 0) {
    return {
      status: 'fail',
      summary: `restricted tickets appeared: ${[...leaks, ...elsewhere].slice(0, 3).join('; ')}`,
      figures,
      details,
    };
  }
  if (problems.length > 0) {
    return {
      status: 'fail',
      summary: `${problems.length} probe(s) did not complete: ${problems[0]}`,
      figures,
      details,
    };
  }
  if (probed.length < restricted.length) {
    details.unshift(
      `only the first ${probed.length} of ${restricted.length} restricted tickets were probed (--probes)`,
    );
  }
  return {
    status: 'pass',
    summary: `no restricted ticket in ${probes.length} probes (${probed.length} tickets by subject and by number) nor in the ${figures.otherChatsChecked} other chats`,
    figures,
    details,
  };
}

export function groundingCheck(session: SuiteSession): CheckOutcome {
  // Tickets named by number are fetched, not retrieved: those chats are left out.
  const checked = session.chats.filter(
    (chat) => chat.referencedIds.length === 0 && chatProblem(chat) === undefined,
  );
  let cards = 0;
  const ungrounded: string[] = [];
  for (const chat of checked) {
    for (const id of chat.answer.cardIds) {
      cards++;
      if (!chat.answer.retrievedIds.includes(id)) {
        ungrounded.push(
          `${chat.label}: card #${id} is not among the retrieved ${chat.answer.retrievedIds.join(', ') || '(none)'}`,
        );
      }
    }
  }
  const figures = {
    chatsChecked: checked.length,
    ticketCards: cards,
    ungroundedCards: ungrounded.length,
  };
  if (ungrounded.length > 0) {
    return { status: 'fail', summary: ungrounded[0] ?? '', figures, details: ungrounded };
  }
  if (cards === 0) {
    return {
      status: 'fail',
      summary: 'no ticket card in any answer: nothing proves grounding',
      figures,
      details: [],
    };
  }
  return {
    status: 'pass',
    summary: `all ${cards} ticket cards of ${checked.length} answers are among their chat's retrieved tickets`,
    figures,
    details: [],
  };
}

/** Words only a printer question would bring into an answer (ja and en). */
const PRINTER_TERMS = [
  'プリンター',
  'プリンタ',
  '印刷',
  '複合機',
  'スプーラ',
  'トナー',
  'printer',
  'print job',
  'spooler',
  'toner',
];

export async function contaminationCheck(session: SuiteSession): Promise<CheckOutcome> {
  const asked = await session.send('contamination Q1 (printer)', {
    message: 'プリンターで印刷できません。印刷ジョブが消えずに溜まったままです。',
  });
  const conversationId = asked.answer.conversationId;
  // Asked back: answer with the first option, so Q1 ends with results before Q2 is sent (Q2
  // would otherwise be taken as the reply).
  const option = asked.answer.result?.options?.[0];
  const first =
    asked.answer.result?.response_type === 'clarification' && option && conversationId
      ? await session.send('contamination Q1 reply', { message: option, conversationId })
      : asked;
  const second = await session.send('contamination Q2 (Salesforce)', {
    message: 'Salesforceにログインできません。パスワードは正しいはずです。',
    ...(conversationId ? { conversationId } : {}),
  });
  const figures: Record<string, string | number | boolean | null> = {
    q1Cards: first.answer.cardIds.join(' ') || null,
    q2Cards: second.answer.cardIds.join(' ') || null,
  };
  const problem = chatProblem(asked) ?? chatProblem(first) ?? chatProblem(second);
  if (problem) return { status: 'fail', summary: problem, figures, details: [] };
  if (second.answer.conversationId !== conversationId) {
    return {
      status: 'fail',
      summary: "Q2 did not continue Q1's conversation",
      figures,
      details: [],
    };
  }
  const result = second.answer.result ?? {};
  const fields = {
    general_advice: result.general_advice ?? '',
    mail_draft: result.mail_draft ?? '',
    todo_actions: (result.todo_actions ?? []).join('\n'),
  };
  // Q1's tickets, unless Q2's own retrieval found them too.
  const q1Ids = first.answer.cardIds.filter((id) => !second.answer.retrievedIds.includes(id));
  const findings: string[] = [];
  for (const [field, text] of Object.entries(fields)) {
    const lower = text.toLowerCase();
    for (const term of PRINTER_TERMS)
      if (lower.includes(term.toLowerCase())) findings.push(`${field} says "${term}"`);
    for (const id of q1Ids)
      if (new RegExp(`(?<!\\d)${id}(?!\\d)`).test(text))
        findings.push(`${field} names Q1's ticket #${id}`);
  }
  figures.findings = findings.length;
  figures.newInquiry = second.answer.inquiryId !== first.answer.inquiryId;
  const details = [
    `Q1-specific: ${PRINTER_TERMS.join(', ')}, Q1's ticket ids ${q1Ids.join(', ') || '(none)'}`,
    ...findings,
  ];
  if (findings.length > 0) {
    return {
      status: 'fail',
      summary: `Q2 carries Q1: ${findings.slice(0, 3).join('; ')}`,
      figures,
      details,
    };
  }
  if (!figures.newInquiry) {
    return { status: 'fail', summary: "Q2 was answered as part of Q1's inquiry", figures, details };
  }
  if (!fields.general_advice || result.response_type !== 'results') {
    return {
      status: 'fail',
      summary: `Q2's answer is ${result.response_type} with ${fields.general_advice.length} advice characters: nothing to judge`,
      figures,
      details,
    };
  }
  return {
    status: 'pass',
    summary: `Q2's advice, mail draft and to-dos (${fields.general_advice.length + fields.mail_draft.length + fields.todo_actions.length} characters) carry no printer word and none of Q1's tickets`,
    figures,
    details,
  };
}

/** Short, ambiguous inquiries a service desk would ask back about; the first that does is used. */
const AMBIGUOUS_INQUIRIES = ['ログインできない', 'パスワード', 'エラーが出る'];

export async function clarificationCheck(session: SuiteSession): Promise<CheckOutcome> {
  const tried: string[] = [];
  for (const message of AMBIGUOUS_INQUIRIES) {
    const asked = await session.send(`clarification "${message}"`, { message });
    tried.push(`"${message}" → ${asked.answer.result?.response_type ?? chatProblem(asked)}`);
    const problem = chatProblem(asked);
    if (problem) return { status: 'fail', summary: problem, figures: {}, details: tried };
    if (asked.answer.result?.response_type !== 'clarification') continue;
    const option = asked.answer.result.options?.[0];
    if (!option) {
      return {
        status: 'fail',
        summary: 'a clarification without options',
        figures: {},
        details: tried,
      };
    }
    const reply = await session.send('clarification reply', {
      message: option,
      ...(asked.answer.conversationId ? { conversationId: asked.answer.conversationId } : {}),
    });
    const figures = {
      inquiry: message,
      options: asked.answer.result.options?.length ?? 0,
      chosen: option,
      replyType: reply.answer.result?.response_type ?? null,
      sameInquiry: reply.answer.inquiryId === asked.answer.inquiryId,
      replyCards: reply.answer.cardIds.length,
    };
    const replyProblem = chatProblem(reply);
    if (replyProblem) return { status: 'fail', summary: replyProblem, figures, details: tried };
    if (!figures.sameInquiry) {
      return {
        status: 'fail',
        summary: 'the reply to the clarification started a new inquiry',
        figures,
        details: tried,
      };
    }
    if (figures.replyType !== 'results') {
      return {
        status: 'fail',
        summary: `the reply was answered with ${figures.replyType}, not results`,
        figures,
        details: tried,
      };
    }
    return {
      status: 'pass',
      summary: `"${message}" was asked back with ${figures.options} options; choosing "${option}" continued the inquiry to results with ${figures.replyCards} ticket card(s)`,
      figures,
      details: tried,
    };
  }
  return {
    status: 'fail',
    summary: 'no ambiguous inquiry was asked back: the clarification path was not exercised',
    figures: {},
    details: tried,
  };
}
