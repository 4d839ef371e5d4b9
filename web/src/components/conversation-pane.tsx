import { ApiError } from '../api/api-error.js';
import type { ChatController } from '../app/use-chat-controller.js';
import { describeError, isRetryableFailure } from '../errors/describe-error.js';
import { useI18n } from '../i18n/i18n-context.js';
import { Composer } from './composer.js';
import { MessageList } from './message-list.js';

/** The open conversation: its messages and the composer, wired to the controller. */
export function ConversationPane({ chat }: { chat: ChatController }) {
  const { t, locale } = useI18n();
  const streaming = chat.view.activeRequestId !== undefined;
  const loadError =
    chat.loadError === undefined
      ? undefined
      : chat.loadError instanceof ApiError
        ? { code: chat.loadError.code, httpStatus: chat.loadError.status }
        : { code: 'unknown' as const };
  return (
    <main className="conversation-pane" data-conversation={chat.activeKey}>
      {loadError !== undefined && (
        <div className="status-notice status-notice--failed" role="alert">
          <p>
            {t('loadFailed')} {describeError(loadError, locale)}
          </p>
          {isRetryableFailure(loadError) && (
            <button type="button" className="button button--small" onClick={chat.retryLoad}>
              {t('retry')}
            </button>
          )}
        </div>
      )}
      <MessageList
        bubbles={chat.view.bubbles}
        streaming={streaming}
        onSend={(message, clientMessageId, attachments) =>
          chat.send(message, clientMessageId, undefined, attachments)
        }
        onSupersede={chat.supersede}
        onNewInquiry={() => chat.setNewInquiry(true)}
        onFeedback={chat.giveFeedback}
        knowledge={chat.view.knowledge}
      />
      <Composer
        streaming={streaming}
        stopping={chat.stopping}
        newInquiry={chat.newInquiry}
        onSend={(message, attachments) =>
          chat.send(message, undefined, chat.newInquiry ? 'new' : undefined, attachments)
        }
        onStop={() => void chat.stop()}
        onCancelNewInquiry={() => chat.setNewInquiry(false)}
      />
    </main>
  );
}
