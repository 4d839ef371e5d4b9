import { useLayoutEffect, useRef, useState } from 'react';
import type { AttachmentRef } from '../../../functions/contract/attachments.js';
import type { PublishedKnowledge } from '../../../functions/contract/knowledge.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { Bubble } from '../state/bubble.js';
import {
  selectHandoffPlaces,
  selectKnowledgePlaces,
} from '../state/select-inquiry-action-places.js';
import { selectVersions } from '../state/select-versions.js';
import { withInquiryBoundaries } from '../state/with-inquiry-boundaries.js';
import type { SendFeedback } from './answer-feedback.js';
import {
  AssistantBubbleView,
  type SendMessage,
  type SendSupersede,
} from './assistant-bubble-view.js';
import { InquiryBoundary } from './inquiry-boundary.js';
import { UserBubbleView } from './user-bubble-view.js';

interface MessageListProps {
  readonly bubbles: readonly Bubble[];
  readonly streaming: boolean;
  /** A message (a clarification's option), or a retry with its id and files. */
  readonly onSend: SendMessage;
  /** Regenerate or edit the latest question (the user turn `supersedes`). */
  readonly onSupersede: SendSupersede;
  readonly onNewInquiry: () => void;
  readonly onFeedback: (seq: number, feedback: Parameters<SendFeedback>[0]) => Promise<void>;
  /** Inquiries of this conversation published as knowledge tickets. */
  readonly knowledge?: readonly PublishedKnowledge[];
}

/** Pixels from the bottom within which the list keeps following new text. */
const FOLLOW_THRESHOLD = 80;

/**
 * The conversation, with a line wherever a new inquiry starts. Follows the growing answer only
 * while the reader is at the bottom, so scrolling up to reread is never yanked back. Each
 * question shows one version (the newest unless staff browse back); the latest question can be
 * edited and its answer regenerated, which adds a version (ADR 0010).
 */
export function MessageList({
  bubbles,
  streaming,
  onSend,
  onSupersede,
  onNewInquiry,
  onFeedback,
  knowledge,
}: MessageListProps) {
  const { t } = useI18n();
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  // The version staff browsed to, per question; a question without one shows its newest.
  const [chosen, setChosen] = useState<Record<string, number>>({});

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  });

  const selected = selectVersions(bubbles, chosen);
  const shown = selected.bubbles;
  const rows = withInquiryBoundaries(shown);
  const knowledgePlaces = selectKnowledgePlaces(bubbles, shown, knowledge);
  const handoffPlaces = selectHandoffPlaces(shown);
  const last = shown.at(-1);
  const lastUser = shown.findLast((bubble) => bubble.kind === 'user');
  const lastPosition = lastUser ? selected.positions.get(lastUser.id) : undefined;
  // Only the newest version of the latest question can be superseded, once it is stored.
  const viewingNewest = !lastPosition || lastPosition.index === lastPosition.count - 1;
  // An answer another request is still generating (a reload mid-answer) would refuse it.
  const answerPending = last?.kind === 'assistant' && last.status === 'streaming';
  const supersedable =
    !streaming &&
    !answerPending &&
    viewingNewest &&
    lastUser?.kind === 'user' &&
    lastUser.seq !== undefined
      ? lastUser
      : undefined;
  // A regenerate keeps the question's files; an edit sends those it keeps.
  const supersede = (
    message: string,
    attachments: readonly AttachmentRef[] | undefined = supersedable?.attachments,
  ) => {
    if (!supersedable?.seq) return;
    if (lastPosition) {
      // The new version is the one to show.
      const { [lastPosition.chain]: _shown, ...others } = chosen;
      setChosen(others);
    }
    onSupersede(message, supersedable.seq, undefined, attachments);
  };
  const browse = (chain: string, index: number) => setChosen({ ...chosen, [chain]: index });
  return (
    <div
      ref={scroller}
      className="message-list"
      onScroll={(event) => {
        const element = event.currentTarget;
        following.current =
          element.scrollHeight - element.scrollTop - element.clientHeight < FOLLOW_THRESHOLD;
      }}
    >
      {bubbles.length === 0 ? (
        <div className="empty-state">
          <h2>{t('emptyTitle')}</h2>
          <p>{t('emptyHint')}</p>
        </div>
      ) : (
        <ol className="message-list__rows">
          {rows.map((row) =>
            row.type === 'boundary' ? (
              <InquiryBoundary key={`boundary-${row.inquiryId}`} />
            ) : row.bubble.kind === 'user' ? (
              <UserBubbleView
                key={row.bubble.id}
                bubble={row.bubble}
                position={selected.positions.get(row.bubble.id)}
                onBrowse={browse}
                onEdit={row.bubble === supersedable ? supersede : undefined}
              />
            ) : (
              <AssistantBubbleView
                key={row.bubble.id}
                bubble={row.bubble}
                actionable={!streaming && viewingNewest && row.bubble === last}
                onSend={onSend}
                onSupersede={onSupersede}
                onRegenerate={
                  supersedable && row.bubble === last
                    ? () => supersede(supersedable.text)
                    : undefined
                }
                onNewInquiry={onNewInquiry}
                onFeedback={onFeedback}
                // Primitives and stored objects only, so memo still skips unchanged bubbles.
                knowledgeInquiryId={knowledgePlaces.get(row.bubble.id)?.inquiryId}
                publishedKnowledge={knowledgePlaces.get(row.bubble.id)?.published}
                canSaveKnowledge={knowledgePlaces.get(row.bubble.id)?.canSave ?? false}
                handoffInquiryId={handoffPlaces.get(row.bubble.id)}
              />
            ),
          )}
        </ol>
      )}
    </div>
  );
}
