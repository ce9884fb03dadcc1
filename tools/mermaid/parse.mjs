#!/usr/bin/env node
// Check Mermaid diagrams with Mermaid's own parser, offline (no browser).
//
// Usage:
//   node tools/mermaid/parse.mjs FILE...          parse each file; .md files: every ```mermaid fence
//   node tools/mermaid/parse.mjs < diagram.mmd    parse standard input as one diagram
//   node tools/mermaid/parse.mjs --dump FILE...   also print, as JSON, the states and transitions
//                                                 Mermaid's state-diagram database holds, and
//                                                 the nodes (with their boxes) and edges it lays out
//
// Exit status: 0 when every diagram parses, 1 when any does not (each error is printed to
// stderr as "<file>[#<fence>]: <message>"), 2 on usage errors.
//
// Mermaid sanitises labels with DOMPurify, which needs a DOM: jsdom supplies one before Mermaid is
// imported, so the parser runs in plain Node.

import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;

const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, logLevel: 'fatal' });

function fencesOf(markdown) {
  const fences = [];
  const pattern = /^```mermaid[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of markdown.matchAll(pattern)) {
    fences.push(match[1]);
  }
  return fences;
}

function readInputs(paths) {
  if (paths.length === 0) {
    return [{ name: '<stdin>', text: readFileSync(0, 'utf8') }];
  }
  const inputs = [];
  for (const path of paths) {
    const text = readFileSync(path, 'utf8');
    if (path.endsWith('.md')) {
      const fences = fencesOf(text);
      if (fences.length === 0) {
        inputs.push({ name: path, text: null, error: 'no ```mermaid fence found' });
      }
      fences.forEach((fence, index) => inputs.push({ name: `${path}#${index + 1}`, text: fence }));
    } else {
      inputs.push({ name: path, text });
    }
  }
  return inputs;
}

// Mermaid stores "#59;"-style entity codes in placeholder form until it renders; undo that so a
// dump shows the text a reader would see.
function decodeEntities(text) {
  return text
    .replace(/\uFB02\u00B0\u00B0(\d+)\u00B6\u00DF/g, (_, code) => String.fromCodePoint(Number(code)))
    .replace(/\uFB02\u00B0(\w+)\u00B6\u00DF/g, (_, name) => {
      const element = document.createElement('textarea');
      element.innerHTML = `&${name};`;
      return element.value;
    });
}

function dumpStateDiagram(db) {
  const states = [];
  for (const [id, state] of db.getStates()) {
    states.push({ id, type: state.type, descriptions: state.descriptions.map(decodeEntities), classes: state.classes });
  }
  const relations = db.getRelations().map((relation) => ({
    id1: relation.id1,
    id2: relation.id2,
    title: decodeEntities(relation.relationTitle ?? ''),
  }));
  return { states, relations, layout: layoutOf(db) };
}

// What Mermaid hands its layout engine: every node with its label and the box it is drawn in
// (parentId: a composite state, or a region "divider" of a parallel one), and every edge. This is
// where nesting shows: getStates() above only lists the top level's states.
function layoutOf(db) {
  if (typeof db.getData !== 'function') {
    return null;
  }
  const data = db.getData();
  const nodes = data.nodes.map((node) => ({
    id: node.id,
    label: decodeEntities(String(node.label ?? '')),
    parentId: node.parentId ?? null,
    isGroup: Boolean(node.isGroup),
    shape: node.shape,
    classes: String(node.cssClasses ?? '').split(/\s+/).filter((name) => name && !name.startsWith('statediagram')),
  }));
  const edges = data.edges.map((edge) => ({ start: edge.start, end: edge.end, label: decodeEntities(String(edge.label ?? '')) }));
  return { nodes, edges };
}

const args = process.argv.slice(2);
const dump = args.includes('--dump');
const paths = args.filter((arg) => arg !== '--dump');
if (paths.some((path) => path.startsWith('-'))) {
  process.stderr.write('usage: parse.mjs [--dump] [FILE...]\n');
  process.exit(2);
}

let failures = 0;
const results = [];
for (const input of readInputs(paths)) {
  if (input.text === null) {
    failures += 1;
    process.stderr.write(`${input.name}: ${input.error}\n`);
    continue;
  }
  try {
    const result = { name: input.name, ok: true };
    if (dump) {
      // getDiagramFromText is what mermaid.parse runs (after the same preprocessing), so one
      // call both checks the diagram and keeps the database to dump: parsing twice doubled the
      // time of a dump.
      const diagram = await mermaid.mermaidAPI.getDiagramFromText(input.text);
      if (typeof diagram.db.getStates === 'function') {
        Object.assign(result, dumpStateDiagram(diagram.db));
      }
    } else {
      await mermaid.parse(input.text);
    }
    results.push(result);
  } catch (error) {
    failures += 1;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${input.name}: ${message}\n`);
    results.push({ name: input.name, ok: false, error: message });
  }
}
// Exit only once stdout is flushed: a pipe takes a large dump in several writes.
const status = failures === 0 ? 0 : 1;
const output = dump ? `${JSON.stringify(results, null, 1)}\n` : '';
process.stdout.write(output, () => process.exit(status));
