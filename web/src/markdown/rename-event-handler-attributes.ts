/**
 * Renames every event-handler attribute (`on…`) in the tags of an HTML string to `data-on…`, so
 * that no browser parse of it meets one. DOMPurify parses the model's HTML in the page (Chromium
 * checks `script-src-attr` for `onerror=` as soon as any document — DOMParser's, a template's,
 * `createHTMLDocument`'s — parses it) and reports a CSP violation although the handler never
 * runs; a deployment with CSP reporting would see each hostile answer as an alarm. The renamed
 * attributes are `data-*`, which the sanitiser drops (`ALLOW_DATA_ATTR: false`).
 *
 * Not a sanitiser: safety stays with DOMPurify, which still sees every tag. The scan follows the
 * HTML tokenizer's tag states (names, quoted and unquoted values, `/` and a closing quote as
 * separators) closely enough that a mistake could only mean a report, never a handler.
 *
 * @example
 * renameEventHandlerAttributes('<img src=x onerror=alert(1)>'); // '<img src=x data-onerror=alert(1)>'
 */
export function renameEventHandlerAttributes(html: string): string {
  let output = '';
  let state: TagState = 'text';
  for (let index = 0; index < html.length; index++) {
    const character = html.charAt(index);
    const startsAttribute =
      (state === 'beforeAttribute' || state === 'afterAttributeName') &&
      !isSpace(character) &&
      character !== '/' &&
      character !== '>' &&
      character !== '=';
    if (startsAttribute && /^on/i.test(html.slice(index, index + 2))) output += 'data-';
    output += character;
    state = nextState(state, character, html.charAt(index + 1));
  }
  return output;
}

type TagState =
  | 'text'
  | 'tagName'
  | 'beforeAttribute'
  | 'attributeName'
  | 'afterAttributeName'
  | 'beforeValue'
  | 'doubleQuoted'
  | 'singleQuoted'
  | 'unquoted';

function nextState(state: TagState, character: string, next: string): TagState {
  switch (state) {
    case 'text':
      return character === '<' && /[a-z/]/i.test(next) ? 'tagName' : 'text';
    case 'tagName':
      if (character === '>') return 'text';
      return isSpace(character) || character === '/' ? 'beforeAttribute' : 'tagName';
    case 'beforeAttribute':
      if (character === '>') return 'text';
      return isSpace(character) || character === '/' ? 'beforeAttribute' : 'attributeName';
    case 'attributeName':
    case 'afterAttributeName':
      if (character === '>') return 'text';
      if (character === '=') return 'beforeValue';
      if (character === '/') return 'beforeAttribute';
      if (isSpace(character)) return 'afterAttributeName';
      return 'attributeName';
    case 'beforeValue':
      if (character === '>') return 'text';
      if (character === '"') return 'doubleQuoted';
      if (character === "'") return 'singleQuoted';
      return isSpace(character) ? 'beforeValue' : 'unquoted';
    case 'doubleQuoted':
      // After the closing quote the next attribute may follow without a space (`"x"onerror=`).
      return character === '"' ? 'beforeAttribute' : 'doubleQuoted';
    case 'singleQuoted':
      return character === "'" ? 'beforeAttribute' : 'singleQuoted';
    case 'unquoted':
      if (character === '>') return 'text';
      return isSpace(character) ? 'beforeAttribute' : 'unquoted';
  }
}

function isSpace(character: string): boolean {
  return (
    character === ' ' ||
    character === '\t' ||
    character === '\n' ||
    character === '\f' ||
    character === '\r'
  );
}
