/** Where a member of the top-level object sits in the serialized text (UTF-16 indices, end exclusive). */
export interface MemberSpan {
  valueStart: number;
  valueEnd: number;
  /** For array values: the index after each element's last character. */
  elementEnds: number[];
  /** For array values: whether each element is a number (it closes one character later). */
  elementIsNumber: boolean[];
}

export interface Serialized {
  text: string;
  /** Spans of the top-level object's members, by key (the last occurrence wins, like JSON.parse). */
  members: Map<string, MemberSpan>;
}

const WHITESPACE = [' ', '\n', '\t', '\r\n', '  ', '\r', ' \n  '];
const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '/': '\\/',
};

/** mulberry32: a tiny deterministic PRNG so that one fast-check integer fixes all formatting. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Serializes a JSON value the adversarial way: random whitespace between all tokens, each code
 * unit of each string raw or escaped (`\uXXXX` in random case, `\/`), numbers in exponent form.
 * The result is valid JSON; `JSON.parse` of it is the expected value.
 */
export function serializeJson(value: unknown, seed: number, whitespaceRate = 0.3): Serialized {
  const random = createRandom(seed);
  const members = new Map<string, MemberSpan>();
  let out = '';
  const ws = () => {
    if (random() < whitespaceRate) out += WHITESPACE[Math.floor(random() * WHITESPACE.length)];
  };
  const writeString = (text: string) => {
    out += '"';
    for (let i = 0; i < text.length; i++) {
      const char = text.charAt(i);
      const code = text.charCodeAt(i);
      const roll = random();
      if (roll < 0.15 || code < 0x20) {
        const hex = code.toString(16).padStart(4, '0');
        out += `\\u${roll < 0.07 ? hex.toUpperCase() : hex}`;
      } else if (SIMPLE_ESCAPES[char] !== undefined && (char !== '/' || roll < 0.5)) {
        out += SIMPLE_ESCAPES[char];
      } else {
        out += char;
      }
    }
    out += '"';
  };
  const writeValue = (item: unknown, depth: number): void => {
    if (typeof item === 'string') writeString(item);
    else if (typeof item === 'number') {
      const plain = JSON.stringify(item);
      out +=
        random() < 0.3 && /^-?\d+$/.test(plain)
          ? `${plain}${random() < 0.5 ? 'e0' : 'E+00'}`
          : plain;
    } else if (item === null || typeof item === 'boolean') out += JSON.stringify(item);
    else if (Array.isArray(item)) {
      out += '[';
      ws();
      const ends: number[] = [];
      item.forEach((element, index) => {
        if (index > 0) {
          ws();
          out += ',';
          ws();
        }
        writeValue(element, depth + 1);
        ends.push(out.length);
      });
      ws();
      out += ']';
      if (depth === 1)
        lastArray = {
          ends,
          isNumber: item.map((e) => typeof e === 'number' && Number.isFinite(e)),
        };
    } else {
      out += '{';
      ws();
      Object.keys(item as object).forEach((key, index) => {
        if (index > 0) {
          ws();
          out += ',';
          ws();
        }
        writeString(key);
        ws();
        out += ':';
        ws();
        const valueStart = out.length;
        lastArray = undefined;
        writeValue((item as Record<string, unknown>)[key], depth + 1);
        if (depth === 0) {
          const array = lastArray as { ends: number[]; isNumber: boolean[] } | undefined;
          members.set(key, {
            valueStart,
            valueEnd: out.length,
            elementEnds: array?.ends ?? [],
            elementIsNumber: array?.isNumber ?? [],
          });
        }
      });
      ws();
      out += '}';
    }
  };
  let lastArray: { ends: number[]; isNumber: boolean[] } | undefined;
  ws();
  writeValue(value, 0);
  ws();
  return { text: out, members };
}
