#!/usr/bin/env node
// Parse Markdown pages with marked (GitHub-flavoured) and print their block structure as JSON, so
// tests can check a generated page the way a Markdown renderer reads it.
//
// Usage: node tools/mermaid/markdown.mjs FILE...
// Output: [{"name": FILE, "blocks": [BLOCK...]}] where BLOCK is one of
//   {"type": "heading", "depth": N, "html": ...}   {"type": "paragraph", "html": ...}
//   {"type": "code", "lang": ...}                  {"type": "list"}  {"type": "other", "raw": ...}
//   {"type": "table", "header": [html...], "rows": [[html...]...]}
// Inline content is given as the HTML marked renders for it.

import { readFileSync } from 'node:fs';
import { marked } from 'marked';

marked.use({ gfm: true });

function inline(text) {
  return marked.parseInline(text);
}

function block(token) {
  switch (token.type) {
    case 'heading':
      return { type: 'heading', depth: token.depth, html: inline(token.text) };
    case 'paragraph':
      return { type: 'paragraph', html: inline(token.text) };
    case 'code':
      return { type: 'code', lang: token.lang ?? '' };
    case 'list':
      return { type: 'list', items: token.items.map((item) => inline(item.text)) };
    case 'table':
      return {
        type: 'table',
        header: token.header.map((cell) => inline(cell.text)),
        rows: token.rows.map((row) => row.map((cell) => inline(cell.text))),
      };
    default:
      return { type: 'other', raw: token.raw };
  }
}

const paths = process.argv.slice(2);
if (paths.length === 0) {
  process.stderr.write('usage: markdown.mjs FILE...\n');
  process.exit(2);
}
const pages = paths.map((path) => ({
  name: path,
  blocks: marked
    .lexer(readFileSync(path, 'utf8'))
    .filter((token) => token.type !== 'space')
    .map(block),
}));
process.stdout.write(`${JSON.stringify(pages, null, 1)}\n`, () => process.exit(0));
