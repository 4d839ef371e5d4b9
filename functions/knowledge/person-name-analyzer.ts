import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { Person } from './personal-data-detectors.js';

/**
 * Person names found by analysis rather than by phrasing: a Japanese morphological analyzer
 * (kuromoji, with the IPADIC dictionary, whose entries tag surnames and given names as
 * 名詞-固有名詞-人名-姓/名) and an English people recogniser (compromise). Each finding becomes a
 * person field of the scrub, so the name is removed wherever the text repeats it.
 *
 * Loaded lazily, once per process, and only where text leaves a person — the import, a knowledge
 * draft and its publish, a lead's read of gap examples — never at the API function's cold start
 * nor on a chat: the dictionary takes seconds of CPU and about 250 MB to load
 * (bench/README.md). Both libraries are imported dynamically for that reason. ADR 0019.
 */

/** The loaded analyzer: synchronous from here on. */
export interface PersonNameAnalyzer {
  /** The person names in `text`, each once, as written (`山田太郎`, `高橋 一郎`, `Maria Garcia`). */
  names(text: string): string[];
}

/** What kuromoji's tokenizer returns per token (the fields this module reads). */
interface KuromojiToken {
  readonly surface_form: string;
  readonly pos: string;
  readonly pos_detail_1: string;
  readonly pos_detail_2: string;
  readonly pos_detail_3: string;
  readonly word_type: string;
}
interface KuromojiTokenizer {
  tokenize(text: string): KuromojiToken[];
}
/** kuromoji's dictionary loader (src/loader/DictionaryLoader.js): reads the files it is given. */
interface KuromojiDictionaryLoader {
  loadArrayBuffer(
    file: string,
    callback: (error: Error | null, buffer?: ArrayBufferLike) => void,
  ): void;
  load(callback: (error: Error | null, dictionaries: unknown) => void): void;
}
type KuromojiDictionaryLoaderClass = new (dicPath: string) => KuromojiDictionaryLoader;
type KuromojiTokenizerClass = new (dictionaries: unknown) => KuromojiTokenizer;
type Compromise = (text: string) => {
  people(): { json(): { text: string; terms?: { text: string }[] }[] };
};

/** The folder name the API function's bundle ships kuromoji's dictionary under (lib/constructs). */
export const ANALYZER_DICTIONARY_FOLDER = 'kuromoji-dict';

/**
 * Where kuromoji's dictionary is: beside the bundle (`kuromoji-dict/`, copied there by the API
 * function's bundling) in Lambda, else in the kuromoji package of node_modules.
 */
export function analyzerDictionaryPath(moduleUrl: string = import.meta.url): string {
  const beside = join(dirname(fileURLToPath(moduleUrl)), ANALYZER_DICTIONARY_FOLDER);
  if (existsSync(join(beside, 'base.dat.gz'))) return beside;
  const packageJson = createRequire(moduleUrl).resolve('kuromoji/package.json');
  return join(dirname(packageJson), 'dict');
}

let loading: Promise<PersonNameAnalyzer> | undefined;

/**
 * The analyzer, loaded at the first call and shared after; a failed load is not cached, so the
 * next call tries again.
 */
export function loadPersonNameAnalyzer(): Promise<PersonNameAnalyzer> {
  loading ??= buildAnalyzer().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function buildAnalyzer(): Promise<PersonNameAnalyzer> {
  const [loaderModule, tokenizerModule, compromiseModule] = await Promise.all([
    import('kuromoji/src/loader/DictionaryLoader.js'),
    import('kuromoji/src/Tokenizer.js'),
    import('compromise'),
  ]);
  const DictionaryLoader = defaultOf(loaderModule) as KuromojiDictionaryLoaderClass;
  const Tokenizer = defaultOf(tokenizerModule) as KuromojiTokenizerClass;
  const nlp = defaultOf(compromiseModule) as Compromise;
  const dicPath = analyzerDictionaryPath();
  // kuromoji's own Node loader (its `builder`) unzips the twelve files at once and copies each
  // into a second buffer: about 200 MB held at the peak, and left as freed but unreturned memory
  // in the process for good — a third of a pull's peak RSS (bench/servicenow-pull.ts). Read one
  // at a time and handed over uncopied, the dictionary's peak is its own size.
  const loader = new DictionaryLoader(dicPath);
  loader.loadArrayBuffer = (file, callback) => {
    let unzipped: Buffer;
    try {
      unzipped = gunzipSync(readFileSync(file));
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback(null, wholeArrayBuffer(unzipped));
  };
  const tokenizer = await new Promise<KuromojiTokenizer>((resolve, reject) => {
    loader.load((error, dictionaries) => {
      if (error)
        reject(new Error(`cannot load kuromoji's dictionary from ${dicPath}`, { cause: error }));
      else resolve(new Tokenizer(dictionaries));
    });
  });
  return {
    names(text) {
      const found = new Set<string>();
      // Each library reads only the lines it can find a name in: the analysis costs milliseconds
      // per kilobyte, and an imported ticket is kilobytes of logs, settings and the other language.
      const lines = text.split('\n');
      const japanese = lines.filter((line) => KANJI_OR_KATAKANA.test(line)).join('\n');
      if (japanese !== '') {
        for (const name of japaneseNames(tokenizer.tokenize(japanese))) found.add(name);
      }
      const english = lines.filter((line) => CAPITALISED_WORD.test(line)).join('\n');
      if (english !== '') {
        for (const name of englishNames(nlp, english)) found.add(name);
      }
      return [...found];
    },
  };
}

/** A CommonJS module's exports, however the module was imported. */
function defaultOf(module: unknown): unknown {
  return (module as { default?: unknown }).default ?? module;
}

/** The buffer's bytes as an ArrayBuffer of their own: its own memory when it has it alone. */
function wholeArrayBuffer(buffer: Buffer): ArrayBufferLike {
  if (buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength) {
    return buffer.buffer;
  }
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
}

/** A line the Japanese analyzer may find a name in: a name token is kanji or katakana. */
const KANJI_OR_KATAKANA = /[\u4e00-\u9fff々\u30a1-\u30fa]/;
/**
 * A line compromise is asked about: two capitalised words in a row (`Hannah Mitchell`). A single
 * given name is left to the phrasing rules (`Hi Mark,`, `Kevin from Legal`), which find it cheaper.
 */
const CAPITALISED_WORD = /(?:^|[^A-Za-z])[A-Z][a-z'’]+[ \t]+[A-Z][a-z]/;

/** The analyzer's names as person fields of the scrub. */
export function peopleFromNames(names: readonly string[]): Person[] {
  return names.map((name) => ({ names: [name] }));
}

// ---------------------------------------------------------------------------------------------
// Japanese

const isSurname = (token: KuromojiToken) =>
  token.pos_detail_2 === '人名' && token.pos_detail_3 === '姓';
const isGivenName = (token: KuromojiToken) =>
  token.pos_detail_2 === '人名' && token.pos_detail_3 === '名';
const isPersonName = (token: KuromojiToken) => token.pos_detail_2 === '人名';

/** Tokens after a surname that show it is a person: an honorific, a role, a verb of speaking… */
const PERSON_FOLLOWERS = new Set([
  'さん',
  '様',
  'さま',
  '氏',
  '君',
  'くん',
  '殿',
  '先生',
  '部長',
  '課長',
  '係長',
  '主任',
  '室長',
  '社長',
  '専務',
  '常務',
  '本部長',
  '所長',
  '支店長',
  '担当',
  'です',
  'と',
  'が',
  'から',
  'より',
  'に',
  'へ',
  'の',
  'は',
  'も',
  'で',
  'や',
  '宛',
  '宛て',
  'まで',
  '（',
  '(',
  '、',
  '。',
]);
const HONORIFICS = new Set(['さん', '様', 'さま', '氏', '君', 'くん', '殿', '先生']);

/** Tokens after a surname that make it part of a place, company or product name instead. */
const NOT_PERSON_FOLLOWERS = new Set([
  '支社',
  '支店',
  '営業所',
  '工場',
  '本社',
  'オフィス',
  '事業所',
  '駅',
  '区',
  '市',
  '町',
  '村',
  '県',
  '線',
  '通り',
  '店',
  'ビル',
  '銀行',
  '証券',
  '電機',
  '電気',
  '製作所',
  '自動車',
  '建設',
  '商事',
  '物産',
  '株式会社',
]);

/**
 * Names from the analyzer's tokens: a surname with a given name after it (`山田` `太郎`), a
 * surname or given name with an honorific or particle after it and nothing that makes it a place
 * (`中野支店`), and a person-name token of two or more characters standing alone. Single-character
 * tokens only inside a full name: `林` alone is as often a forest.
 */
function japaneseNames(tokens: readonly KuromojiToken[]): string[] {
  const names: string[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] as KuromojiToken;
    // Only kanji or katakana: a hiragana token the dictionary tags as a name (`さん` after a space)
    // is as often a word, and an honorific is never the name.
    if (!isPersonName(token) || !/^[\u4e00-\u9fff々\u30a1-\u30fa\u30fc]+$/.test(token.surface_form))
      continue;
    const next = tokens[index + 1];
    const afterNext = tokens[index + 2];
    const previous = tokens[index - 1];
    if (isSurname(token) && next !== undefined && isGivenName(next)) {
      names.push(`${token.surface_form}${next.surface_form}`);
      index += 1;
      continue;
    }
    if (
      isSurname(token) &&
      next?.surface_form.trim() === '' &&
      afterNext &&
      isGivenName(afterNext)
    ) {
      names.push(`${token.surface_form}${next.surface_form}${afterNext.surface_form}`);
      index += 2;
      continue;
    }
    const surface = token.surface_form;
    if (surface.length < 2 && !(next && PERSON_FOLLOWERS.has(next.surface_form))) continue;
    // A katakana word the dictionary also lists as a name (`ラベル`, `キーン`) is a name only
    // with an honorific after it.
    if (/^[\u30a1-\u30fa\u30fc]+$/.test(surface) && !(next && HONORIFICS.has(next.surface_form)))
      continue;
    if (next !== undefined && NOT_PERSON_FOLLOWERS.has(next.surface_form)) continue;
    // Inside a compound of other nouns (`松下電器`, `中村屋`): not a person.
    if (previous !== undefined && previous.pos === '名詞' && previous.pos_detail_1 === '固有名詞')
      continue;
    if (next === undefined || PERSON_FOLLOWERS.has(next.surface_form) || next.pos !== '名詞') {
      if (isSurname(token) || next === undefined || PERSON_FOLLOWERS.has(next.surface_form))
        names.push(surface);
    }
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// English

/** Capitalised words compromise may read as a person that are products or places here. */
const NOT_PEOPLE = new Set([
  'active',
  'directory',
  'teams',
  'outlook',
  'excel',
  'windows',
  'azure',
  'office',
  'chrome',
  'edge',
  'zoom',
  'slack',
  'jira',
  'okta',
  'duo',
  'visio',
  'canva',
  'citrix',
  'docker',
  'python',
  'java',
  'dell',
  'lenovo',
  'apple',
  'google',
  'microsoft',
  'adobe',
  'cisco',
  'surface',
  'pixel',
  'kindle',
  'alexa',
  'siri',
  'cortana',
  'copilot',
  'tokyo',
  'osaka',
  'nagoya',
  'fukuoka',
  'london',
  'seattle',
  'singapore',
  'sydney',
  'paris',
  'start-managedfolderassistant',
]);

function englishNames(nlp: Compromise, text: string): string[] {
  const names: string[] = [];
  for (const person of nlp(text).people().json()) {
    const name = person.text
      .replace(/['’]s$/, '')
      .replace(/[^A-Za-z'’\- .]+$/, '')
      .replace(/^[^A-Za-z]+/, '')
      .trim();
    if (name.length < 2 || !/^[A-Z]/.test(name)) continue;
    const words = name.split(/\s+/);
    if (words.some((word) => NOT_PEOPLE.has(word.toLowerCase()))) continue;
    names.push(name);
  }
  return names;
}
