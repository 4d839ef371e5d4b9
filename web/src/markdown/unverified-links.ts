import { findLinks, hrefDomains } from '../../../functions/contract/links.js';

/**
 * Links in the advice are clickable only once the server has checked them
 * (`result.unverified_links`, `functions/contract/links.ts`): while the advice streams, and on
 * answers stored before links were checked, every link is plain text; after the check, a link to a
 * domain outside the allow-list is text marked unverified. Fails closed: an anchor stays only
 * when its domain is among the links the shared grammar finds in the block's own markdown and not
 * among the server's unverified ones — an `href` the grammar does not see in the text (an
 * entity-encoded one in raw HTML, say) never becomes clickable. Built with DOM calls on the
 * sanitised fragment only, so model text can neither forge nor hide a mark.
 */

/** The class of a link shown as unverified text (styled in app.css, queried by browser tests). */
const UNVERIFIED_LINK_CLASS = 'unverified-link';
/** The class of a link not yet checked (streaming, or an answer stored before the check). */
const UNCHECKED_LINK_CLASS = 'unchecked-link';

/** What the server said about the advice's links. */
export interface LinkMarks {
  /** `result.unverified_links`; absent while streaming or on answers stored before the check. */
  readonly unverified?: readonly string[];
  /** The tooltip of an unverified link, in the page's language. */
  readonly title: string;
}

/**
 * Replaces every anchor under `root` that is not verified by a `<span>` holding its text, and
 * wraps unverified links written as text in `<span class="unverified-link">`. `markdown` is the
 * block `root` was rendered from.
 */
export function markUnverifiedLinks(root: DocumentFragment, markdown: string, marks: LinkMarks) {
  const document = root.ownerDocument;
  const checked = marks.unverified !== undefined;
  const unverifiedDomains = new Set(
    (marks.unverified ?? []).flatMap((link) =>
      findLinks(link).flatMap((found) => found.domain ?? []),
    ),
  );
  const verifiedDomains = new Set(
    findLinks(markdown).flatMap((link) =>
      link.domain !== undefined && !unverifiedDomains.has(link.domain) ? [link.domain] : [],
    ),
  );
  for (const anchor of [...root.querySelectorAll('a')]) {
    const href = anchor.getAttribute('href');
    const domains = href === null ? [] : hrefDomains(href);
    const verified =
      checked &&
      domains !== undefined &&
      domains.length > 0 &&
      domains.every((domain) => verifiedDomains.has(domain));
    if (verified || href === null) continue;
    const text = document.createElement('span');
    text.className = checked ? UNVERIFIED_LINK_CLASS : UNCHECKED_LINK_CLASS;
    if (checked) text.title = marks.title;
    text.append(...anchor.childNodes);
    anchor.replaceWith(text);
  }
  if (checked) markTextLinks(root, verifiedDomains, marks.title);
}

/** Links written as text (`evil.example/reset`) outside `verifiedDomains` get a mark of their own. */
function markTextLinks(
  root: DocumentFragment,
  verifiedDomains: ReadonlySet<string>,
  title: string,
) {
  const document = root.ownerDocument;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const textNodes: Text[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    if (!(node.parentElement?.classList.contains(UNVERIFIED_LINK_CLASS) ?? false)) {
      textNodes.push(node as Text);
    }
  }
  for (const node of textNodes) {
    const links = findLinks(node.data).filter(
      (link) => link.domain === undefined || !verifiedDomains.has(link.domain),
    );
    if (links.length === 0) continue;
    const replacement = document.createDocumentFragment();
    let position = 0;
    for (const link of links) {
      if (link.start < position) continue;
      replacement.append(node.data.slice(position, link.start));
      const mark = document.createElement('span');
      mark.className = UNVERIFIED_LINK_CLASS;
      mark.title = title;
      mark.textContent = node.data.slice(link.start, link.end);
      replacement.append(mark);
      position = link.end;
    }
    replacement.append(node.data.slice(position));
    node.replaceWith(replacement);
  }
}
