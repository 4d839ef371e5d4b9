import {
  type FoundLink,
  findLinks,
  hasSurvivingScheme,
  hrefDomains,
  parseLinkTarget,
  removedLinkPlaceholder,
} from '../../../functions/contract/links.js';

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
export const UNVERIFIED_LINK_CLASS = 'unverified-link';
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
  const isUnverified = unverifiedLinkTest(marks.unverified ?? []);
  const verifiedDomains = new Set(
    findLinks(markdown).flatMap((link) =>
      link.domain !== undefined && !isUnverified(link) ? [link.domain] : [],
    ),
  );
  for (const anchor of [...root.querySelectorAll('a')]) {
    const href = anchor.getAttribute('href');
    const domains = href === null ? [] : hrefDomains(href);
    const verified =
      checked &&
      href !== null &&
      hasSurvivingScheme(parseLinkTarget(href)) &&
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

/**
 * Whether a link found in a text the server checked is one it listed (`unverified_links`), or
 * one no page may pass on whatever the list says: a scheme other than `https:` or `mailto:`, or
 * no host. A listed link makes every link to its domain unverified, as the server judged the
 * domain; one listed for its scheme alone (`http://support.microsoft.com`) does not.
 */
function unverifiedLinkTest(unverified: readonly string[]): (link: FoundLink) => boolean {
  const listed = new Set(unverified);
  const domains = new Set(
    unverified.flatMap((link) =>
      findLinks(link).flatMap((found) =>
        found.domain !== undefined && hasSurvivingScheme(found) ? [found.domain] : [],
      ),
    ),
  );
  return (link) =>
    listed.has(link.link) ||
    !hasSurvivingScheme(link) ||
    link.domain === undefined ||
    domains.has(link.domain);
}

/** A stretch of plain text: a link that may not be passed on, or text between. */
export interface LinkSegment {
  readonly text: string;
  readonly unverified: boolean;
}

/**
 * `text` (a mail draft, a hand-off field: plain text the page shows and passes on) cut into
 * stretches, the links that may not be passed on marked ({@link unverifiedLinkTest}; overlapping
 * links as one stretch). The page marks them as it marks the advice's; copying and the `mailto:`
 * body use {@link withoutUnverifiedLinks}, so neither carries a link the page marked.
 *
 * @example
 * splitUnverifiedLinks('Open javascript:alert(1) now', []);
 * // [{ text: 'Open ', unverified: false }, { text: 'javascript:alert(1)', unverified: true }, { text: ' now', unverified: false }]
 */
export function splitUnverifiedLinks(text: string, unverified: readonly string[]): LinkSegment[] {
  const isUnverified = unverifiedLinkTest(unverified);
  const segments: LinkSegment[] = [];
  let position = 0;
  let open: { start: number; end: number } | undefined;
  const close = () => {
    if (!open) return;
    if (open.start > position)
      segments.push({ text: text.slice(position, open.start), unverified: false });
    segments.push({ text: text.slice(open.start, open.end), unverified: true });
    position = open.end;
    open = undefined;
  };
  for (const link of findLinks(text).filter(isUnverified)) {
    if (open && link.start < open.end) open.end = Math.max(open.end, link.end);
    else {
      close();
      open = { start: link.start, end: link.end };
    }
  }
  close();
  if (position < text.length) segments.push({ text: text.slice(position), unverified: false });
  return segments;
}

/**
 * `text` as it may leave the page (copied, handed to the mail client): each link
 * {@link splitUnverifiedLinks} marks replaced by the server's placeholder.
 *
 * @example
 * withoutUnverifiedLinks('Open javascript:alert(1) now', []); // 'Open [link removed] now'
 */
export function withoutUnverifiedLinks(text: string, unverified: readonly string[]): string {
  const placeholder = removedLinkPlaceholder(text);
  return splitUnverifiedLinks(text, unverified)
    .map((segment) => (segment.unverified ? placeholder : segment.text))
    .join('');
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
      (link) =>
        link.domain === undefined || !hasSurvivingScheme(link) || !verifiedDomains.has(link.domain),
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
