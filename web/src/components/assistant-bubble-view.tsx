import { memo, useMemo } from 'react';
import type { AttachmentRef } from '../../../functions/contract/attachments.js';
import type { PublishedKnowledge } from '../../../functions/contract/knowledge.js';
import { isOfflineModelId } from '../../../local/bedrock/local-bedrock-defaults.js';
import { useHandoffContext } from '../app/use-handoff-summary.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { AssistantBubble } from '../state/bubble.js';
import { AnswerFeedbackBar, type SendFeedback, useAnswerFeedback } from './answer-feedback.js';
import { AnswerNotices } from './answer-notices.js';
import { ClarificationPanel } from './clarification-panel.js';
import { HandoffAction } from './handoff-summary-panel.js';
import { KbDetails } from './kb-details.js';
import { KnowledgeActions } from './knowledge-actions.js';
import { MailDraft } from './mail-draft.js';
import { ProgressSteps } from './progress-steps.js';
import { StatusNotice } from './status-notice.js';
import { StreamingMarkdown } from './streaming-markdown.js';
import { TicketCards } from './ticket-cards.js';
import { TodoChecklist } from './todo-checklist.js';
import { UnverifiedLinksNotice } from './unverified-links-notice.js';

/** Sends a message: typed, a clarification's option, or a retry with its id and files. */
export type SendMessage = (
  message: string,
  clientMessageId?: string,
  attachments?: readonly AttachmentRef[],
) => void;

/** Sends a new version of the question `supersedes` names (regenerate or edit). */
export type SendSupersede = (
  message: string,
  supersedes: number,
  clientMessageId?: string,
  attachments?: readonly AttachmentRef[],
) => void;

interface AssistantBubbleViewProps {
  readonly bubble: AssistantBubble;
  /** The last bubble of the conversation, with nothing streaming: it may be answered or retried. */
  readonly actionable: boolean;
  /** A message (a clarification's option), or a retry with its id and files. */
  readonly onSend: SendMessage;
  /** Sends a regenerate or edit again (a retry of one that failed). */
  readonly onSupersede: SendSupersede;
  /** Present on the latest answer while nothing streams: ask for a new version of it. */
  readonly onRegenerate?: () => void;
  readonly onNewInquiry: () => void;
  readonly onFeedback: (seq: number, feedback: Parameters<SendFeedback>[0]) => Promise<void>;
  /** Set on the last answer shown of an inquiry that is solved or published (knowledge capture). */
  readonly knowledgeInquiryId?: string;
  /** The ticket that inquiry was published as. */
  readonly publishedKnowledge?: PublishedKnowledge;
  /** The inquiry is solved and not yet published: "Save as knowledge" applies. */
  readonly canSaveKnowledge?: boolean;
  /** Set on the last answer shown of each inquiry once it is stored: "Hand-off summary" applies. */
  readonly handoffInquiryId?: string;
}

/**
 * One answer through its whole life: progress while waiting, advice streaming in, ticket cards
 * one by one, then the same bubble becomes the results (or clarification) view.
 */
export const AssistantBubbleView = memo(function AssistantBubbleView({
  bubble,
  actionable,
  onSend,
  onSupersede,
  onRegenerate,
  onNewInquiry,
  onFeedback,
  knowledgeInquiryId,
  publishedKnowledge,
  canSaveKnowledge = false,
  handoffInquiryId,
}: AssistantBubbleViewProps) {
  const { t } = useI18n();
  const handoff = useHandoffContext();
  const { result, status, request, seq } = bubble;
  const feedbackState = useAnswerFeedback(bubble.feedback, (feedback) =>
    seq === undefined ? Promise.resolve() : onFeedback(seq, feedback),
  );
  const streaming = status === 'streaming';
  // Marked once the result names them. A failed answer has no result while live, so it is not
  // marked after a reload either: both views agree.
  const unverified = status === 'failed' ? undefined : result?.unverified_references;
  const unverifiedTitle = t('unverifiedReference');
  const marks = useMemo(
    () =>
      unverified && unverified.length > 0 ? { unverified, title: unverifiedTitle } : undefined,
    [unverified, unverifiedTitle],
  );
  // Links are clickable only once the result says which are verified (unverified-links.ts).
  const unverifiedLinks = status === 'failed' ? undefined : result?.unverified_links;
  const unverifiedLinkTitle = t('unverifiedLink');
  const links = useMemo(
    () => ({ unverified: unverifiedLinks, title: unverifiedLinkTitle }),
    [unverifiedLinks, unverifiedLinkTitle],
  );
  const clarification = result?.response_type === 'clarification';
  // Feedback is on stored answers (a clarification asks; it does not answer yet).
  const rateable =
    seq !== undefined && result !== undefined && !clarification && status !== 'failed';
  // Only a failure is worth re-sending: the server replays a stored stopped or truncated answer
  // for the same clientMessageId, and a rejected request (400/401/413) would fail again.
  const retryable = status === 'failed' && bubble.error?.retryable !== false;
  const retry =
    actionable && request && retryable
      ? () =>
          request.supersedes === undefined
            ? onSend(request.message, request.clientMessageId, request.attachments)
            : onSupersede(
                request.message,
                request.supersedes,
                request.clientMessageId,
                request.attachments,
              )
      : undefined;
  return (
    <li className="bubble bubble--assistant" data-status={status} aria-busy={streaming}>
      <div className="bubble__meta">
        <span className="visually-hidden">{t('assistant')}</span>
        {bubble.modelId !== undefined && isOfflineModelId(bubble.modelId) && (
          <span className="badge badge--offline" title={bubble.modelId}>
            {t('offline')}
          </span>
        )}
      </div>
      {streaming && <ProgressSteps reached={bubble.steps} />}
      {bubble.inFlightUntil !== undefined && (
        <p className="status-notice status-notice--info" role="status">
          {t('answerInFlight')}
        </p>
      )}
      <KbDetails query={bubble.kbQuery} chunks={bubble.kbChunks} />
      <AnswerNotices
        surge={bubble.surge}
        knownIssues={bubble.knownIssues}
        fromHistory={bubble.noticesFromHistory === true}
      />
      <div className="bubble__answer" aria-live="polite" aria-busy={streaming}>
        <StreamingMarkdown text={bubble.text} marks={marks} links={links} />
      </div>
      {clarification && (
        <ClarificationPanel
          question={result.question}
          options={result.options ?? []}
          active={actionable}
          onAnswer={(text) => onSend(text)}
          onNewInquiry={onNewInquiry}
        />
      )}
      <TicketCards tickets={bubble.tickets} feedback={rateable ? feedbackState : undefined} />
      {result?.mail_draft && (
        <MailDraft
          draft={result.mail_draft}
          marks={marks}
          links={unverifiedLinks ?? []}
          seq={status === 'failed' ? undefined : seq}
          storedVersions={bubble.mailDraftVersions}
        />
      )}
      {unverifiedLinks && (
        <UnverifiedLinksNotice links={unverifiedLinks} message="unverifiedLinksRemoved" />
      )}
      {result?.todo_actions && result.todo_actions.length > 0 && (
        <TodoChecklist actions={result.todo_actions} />
      )}
      <StatusNotice bubble={bubble} onRetry={retry} />
      {rateable && <AnswerFeedbackBar state={feedbackState} />}
      {knowledgeInquiryId !== undefined && (
        <KnowledgeActions
          inquiryId={knowledgeInquiryId}
          published={publishedKnowledge}
          canSave={canSaveKnowledge}
        />
      )}
      {handoffInquiryId !== undefined && handoff?.conversationId && !streaming && (
        <HandoffAction
          api={handoff.api}
          conversationId={handoff.conversationId}
          inquiryId={handoffInquiryId}
        />
      )}
      {onRegenerate && !streaming && (
        <div className="answer-actions">
          <button type="button" className="button button--small" onClick={onRegenerate}>
            {t('regenerate')}
          </button>
        </div>
      )}
    </li>
  );
});
