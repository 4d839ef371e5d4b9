import type { ConversationSummary } from '../../../functions/contract/conversations.js';
import type { ConversationSearchState } from '../app/use-conversation-list.js';
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
  readonly search: ConversationSearchState;
}

/** The caller's conversations, latest activity first. A drawer on narrow screens. */
export function Sidebar(props: SidebarProps) {
  const { t } = useI18n();
  // While a search is typed, its matches replace the list (the last ones until new ones arrive).
  const searching = props.search.query.trim() !== '';
  const shown = searching ? (props.search.results ?? []) : props.conversations;
  return (
    <nav
      className={props.open ? 'sidebar sidebar--open' : 'sidebar'}
      aria-label={t('conversations')}
    >
      <button type="button" className="button button--primary sidebar__new" onClick={props.onNew}>
        {t('newConversation')}
      </button>
      <input
        type="search"
        className="sidebar__search"
        aria-label={t('searchConversations')}
        placeholder={t('searchConversations')}
        value={props.search.query}
        maxLength={200}
        onChange={(event) => props.search.setQuery(event.target.value)}
      />
      <h2 className="sidebar__heading" aria-live="polite">
        {searching ? t('searchResults') : t('conversations')}
      </h2>
      {searching && props.search.results?.length === 0 && !props.search.searching && (
        <p className="sidebar__empty">{t('noSearchResults')}</p>
      )}
      {!searching && props.loaded && props.conversations.length === 0 && (
        <p className="sidebar__empty">{t('noConversations')}</p>
      )}
      <ul className="sidebar__list" aria-busy={props.search.searching}>
        {shown.map((conversation) => (
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
      {(searching ? props.search.hasMore : props.hasMore) && (
        <button
          type="button"
          className="button button--small sidebar__more"
          onClick={searching ? () => void props.search.loadMore() : props.onLoadMore}
        >
          {t('loadMore')}
        </button>
      )}
    </nav>
  );
}
