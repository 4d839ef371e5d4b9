/**
 * The two modules of kuromoji 0.1.2 (pinned; unchanged since 2018) that person-name-analyzer.ts
 * builds its tokenizer from, so it can load the dictionary itself; their shapes are declared
 * there.
 */
declare module 'kuromoji/src/loader/DictionaryLoader.js';
declare module 'kuromoji/src/Tokenizer.js';
