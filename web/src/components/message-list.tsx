import { useLayoutEffect, useRef } from 'react';
import { useI18n } from '../i18n/i18n-context.js';
import type { Bubble } from '../state/bubble.js';
import { withInquiryBoundaries } from '../state/with-inquiry-boundaries.js';
import type { SendFeedback } from './answer-feedback.js';
import { AssistantBubbleView } from './assistant-bubble-view.js';
import { InquiryBoundary } from './inquiry-boundary.js';
import { UserBubbleView } from './user-bubble-view.js';

interface MessageListProps {
  readonly bubbles: readonly Bubble[];
  readonly streaming: boolean;
  readonly onSend: (message: string, clientMessageId?: string) => void;
  readonly onNewInquiry: () => void;
  readonly onFeedback: (seq: number, feedback: Parameters<SendFeedback>[0]) => Promise<void>;
}

/** Pixels from the bottom within which the list keeps following new text. */
const FOLLOW_THRESHOLD = 80;

/**
 * The conversation, with a line wherever a new inquiry starts. Follows the growing answer only
 * while the reader is at the bottom, so scrolling up to reread is never yanked back.
 */
export function MessageList({
  bubbles,
  streaming,
  onSend,
  onNewInquiry,
  onFeedback,
}: MessageListProps) {
  const { t } = useI18n();
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  });

  const rows = withInquiryBoundaries(bubbles);
  const last = bubbles.at(-1);
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
              <UserBubbleView key={row.bubble.id} bubble={row.bubble} />
            ) : (
              <AssistantBubbleView
                key={row.bubble.id}
                bubble={row.bubble}
                actionable={!streaming && row.bubble === last}
                onSend={onSend}
                onNewInquiry={onNewInquiry}
                onFeedback={onFeedback}
              />
            ),
          )}
        </ol>
      )}
    </div>
  );
}
