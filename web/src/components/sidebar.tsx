import type { ConversationSummary } from '../../../functions/contract/conversations.js';
import { useI18n } from '../i18n/i18n-context.js';
import { ConversationListItem } from './conversation-list-item.js';

interface SidebarProps {
  readonly conversations: readonly ConversationSummary[];
  readonly loaded: boolean;
  readonly hasMore: boolean;
  readonly onLoadMore: () => void;
  readonly activeKey: string;
  readonly open: boolean;
  readonly onNew: () => void;
  readonly onOpen: (conversationId: string) => void;
  readonly onRename: (conversationId: string, title: string) => void;
  readonly onDelete: (conversationId: string) => void;
}

/** The caller's conversations, latest activity first. A drawer on narrow screens. */
export function Sidebar(props: SidebarProps) {
  const { t } = useI18n();
  return (
    <nav
      className={props.open ? 'sidebar sidebar--open' : 'sidebar'}
      aria-label={t('conversations')}
    >
      <button type="button" className="button button--primary sidebar__new" onClick={props.onNew}>
        {t('newConversation')}
      </button>
      <h2 className="sidebar__heading">{t('conversations')}</h2>
      {props.loaded && props.conversations.length === 0 && (
        <p className="sidebar__empty">{t('noConversations')}</p>
      )}
      <ul className="sidebar__list">
        {props.conversations.map((conversation) => (
          <ConversationListItem
            key={conversation.conversationId}
            conversation={conversation}
            active={conversation.conversationId === props.activeKey}
            onOpen={() => props.onOpen(conversation.conversationId)}
            onRename={(title) => props.onRename(conversation.conversationId, title)}
            onDelete={() => props.onDelete(conversation.conversationId)}
          />
        ))}
      </ul>
      {props.hasMore && (
        <button
          type="button"
          className="button button--small sidebar__more"
          onClick={props.onLoadMore}
        >
          {t('loadMore')}
        </button>
      )}
    </nav>
  );
}
