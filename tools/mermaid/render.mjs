#!/usr/bin/env node
// Render Markdown pages to HTML with two real renderers, raw HTML allowed (so that any HTML a page
// lets through shows up): markdown-it (CommonMark, plus GFM tables) and marked (GitHub-flavoured).
//
// Usage: node tools/mermaid/render.mjs FILE...
// Output: [{"name": FILE, "markdown-it": HTML, "marked": HTML}]

import { readFileSync } from 'node:fs';
import MarkdownIt from 'markdown-it';
import { marked } from 'marked';

const commonmark = new MarkdownIt({ html: true, linkify: false });
marked.use({ gfm: true });

const paths = process.argv.slice(2);
if (paths.length === 0) {
  process.stderr.write('usage: render.mjs FILE...\n');
  process.exit(2);
}
const pages = paths.map((path) => {
  const text = readFileSync(path, 'utf8');
  return { name: path, 'markdown-it': commonmark.render(text), marked: marked.parse(text) };
});
process.stdout.write(`${JSON.stringify(pages)}\n`, () => process.exit(0));
