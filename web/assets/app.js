// convfail workbench: one page over the JSON API of `convfail serve`. Plain JavaScript, no
// build step. Every piece of outside text reaches the page through textContent (el() below),
// never as HTML.
'use strict';

const state = { session: null, annotate: null };

// ---- DOM and HTTP helpers

// el('tag', {attr: value, onclick: fn}, child...): children are nodes or text (as text).
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function show(...nodes) {
  const main = document.getElementById('main');
  main.replaceChildren(...nodes);
}

function showError(message) {
  const box = document.getElementById('error');
  box.textContent = message || '';
  box.hidden = !message;
}

async function api(path, options) {
  const init = Object.assign({ credentials: 'same-origin', headers: {} }, options || {});
  if (init.json !== undefined) {
    init.method = init.method || 'POST';
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(init.json);
    delete init.json;
  }
  // 503: another process keeps the database locked (a long batch job); the answer is not
  // lost: wait as the server asks and send it again.
  let res = await fetch(path, init);
  for (let attempt = 0; res.status === 503 && attempt < 30; ++attempt) {
    showError('The database is busy; your answer will be saved in a moment…');
    const wait = Math.min(Number(res.headers.get('Retry-After')) || 2, 10);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    res = await fetch(path, init);
    if (res.status !== 503) showError('');
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new Error((data && data.error) || ('HTTP ' + res.status));
  return data;
}

// A text answer (the report's HTML); errors as api() reports them.
async function apiText(path) {
  const res = await fetch(path, { credentials: 'same-origin' });
  const text = await res.text();
  if (!res.ok) {
    let message = 'HTTP ' + res.status;
    try { message = JSON.parse(text).error || message; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  return text;
}

function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && v !== null && v !== undefined) q.set(k, v);
  return q.toString();
}

function issuePath(repo, number) { return '#/issue/' + repo + '/' + number; }

function fmt(x, digits) { return x === null || x === undefined ? '–' : Number(x).toFixed(digits === undefined ? 2 : digits); }

function select(name, values, current, blank) {
  const s = el('select', { name });
  if (blank !== undefined) s.appendChild(el('option', { value: '' }, blank));
  for (const v of values) {
    const [value, text] = Array.isArray(v) ? v : [v, v];
    s.appendChild(el('option', { value, selected: value === current }, text));
  }
  return s;
}

function dimension(id) { return state.session.dimensions.find((d) => d.id === id); }

function labelTitle(dim, id) {
  if (dim === 'subtype') {
    for (const l of dimension('cause').labels) for (const s of l.subtypes) if (s.id === id) return s.title;
    return id;
  }
  const d = dimension(dim);
  const l = d && d.labels.find((x) => x.id === id);
  return l ? l.title : id;
}

// Text with highlighted ranges [[start, end, title], ...] (UTF-16 offsets, sorted, disjoint).
function highlighted(text, ranges, cls) {
  const node = el('div', { class: cls || 'text' });
  let at = 0;
  for (const [start, end, title] of ranges || []) {
    if (start < at || end > text.length) continue;
    node.appendChild(document.createTextNode(text.slice(at, start)));
    node.appendChild(el('mark', { class: 'ev', title }, text.slice(start, end)));
    at = end;
  }
  node.appendChild(document.createTextNode(text.slice(at)));
  return node;
}

// A snippet with [matches] in brackets (the CLI's search markers) shown as marks.
function snippet(text) {
  const node = el('div', { class: 'snippet' });
  const parts = text.split(/(\[[^\]]*\])/);
  for (const p of parts) {
    if (p.startsWith('[') && p.endsWith(']')) node.appendChild(el('mark', {}, p.slice(1, -1)));
    else node.appendChild(document.createTextNode(p));
  }
  return node;
}

// ---- Rendered HTML (issue bodies, the report)

// The server renders Markdown with core's markdown_to_safe_html (cmark-gfm in safe mode: raw HTML
// omitted, javascript:/data: links dropped) and the report with reports' HTML renderer (every text
// escaped). As a second wall the page parses that HTML inertly (DOMParser: nothing runs or loads)
// and rebuilds it from an allow-list of elements and attributes: anything else is dropped (its
// text kept), links open outside with no referrer, images become links (the CSP loads none).
const SVG_NS = 'http://www.w3.org/2000/svg';
const SAFE_HTML = {
  p: ['class'], br: [], hr: [], h1: [], h2: [], h3: [], h4: [], h5: [], h6: [], blockquote: [], pre: ['lang'],
  code: ['class'], em: [], strong: [], del: [], ul: [], ol: ['start'], li: [], a: ['href', 'title'],
  table: [], thead: [], tbody: [], tr: ['class'], th: ['align', 'scope'], td: ['align'], caption: [],
  input: ['type', 'checked', 'disabled'], sup: [], sub: [], section: ['id'], figure: [], div: ['class'],
  span: ['class'],
};
const SAFE_SVG = {
  svg: ['width', 'height', 'viewBox', 'role'], g: ['transform'], title: [], line: ['x1', 'y1', 'x2', 'y2', 'stroke', 'stroke-width', 'stroke-dasharray'],
  rect: ['x', 'y', 'width', 'height', 'fill', 'stroke', 'stroke-width'],
  text: ['x', 'y', 'text-anchor', 'font-size', 'transform', 'fill', 'dominant-baseline'],
};
const DROP = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'object', 'embed']);

function safeUrl(href) {
  return /^(https?:\/\/|mailto:|#)/i.test(href || '') ? href : null;
}

function safeCopy(from, into) {
  for (const c of from.childNodes) {
    if (c.nodeType === Node.TEXT_NODE) { into.appendChild(document.createTextNode(c.nodeValue)); continue; }
    if (c.nodeType !== Node.ELEMENT_NODE) continue;  // comments ("raw HTML omitted") and the rest
    const tag = c.localName;
    if (DROP.has(tag)) continue;
    const svg = c.namespaceURI === SVG_NS;
    if (!svg && tag === 'img') {
      const src = safeUrl(c.getAttribute('src'));
      const label = '[image' + (c.getAttribute('alt') ? ': ' + c.getAttribute('alt') : '') + ']';
      into.appendChild(src ? el('a', { href: src, rel: 'noopener noreferrer nofollow', target: '_blank', class: 'image-link' }, label) : document.createTextNode(label));
      continue;
    }
    const allowed = svg ? SAFE_SVG[tag] : SAFE_HTML[tag];
    if (!allowed) { safeCopy(c, into); continue; }
    const node = svg ? document.createElementNS(SVG_NS, tag) : document.createElement(tag);
    for (const name of allowed) {
      const v = c.getAttribute(name);
      if (v === null) continue;
      if (name === 'href') {
        if (safeUrl(v)) node.setAttribute('href', v);
      } else if (!svg && name === 'type' && v !== 'checkbox') {
        continue;
      } else node.setAttribute(name, v);
    }
    if (tag === 'a') { node.setAttribute('rel', 'noopener noreferrer nofollow'); node.setAttribute('target', '_blank'); }
    if (tag === 'input') node.setAttribute('disabled', '');
    safeCopy(c, node);
    into.appendChild(node);
  }
  return into;
}

// A node holding `html` (from the server's renderers) rebuilt through the allow-list.
function safeHtml(html, cls) {
  // The report's own <style> is not wanted (the page styles it) and parsing it would trip the CSP.
  const doc = new DOMParser().parseFromString(html.replace(/<style[^>]*>[^<]*<\/style>/gi, ''), 'text/html');
  return safeCopy(doc.body, el('div', { class: cls }));
}

// Marks the first occurrence of each string in the text of `root` (evidence in rendered bodies).
function markStrings(root, marks) {
  for (const [needle, title] of marks) {
    if (needle.trim().length < 2) continue;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const at = t.nodeValue.indexOf(needle);
      if (at < 0 || (t.parentNode && t.parentNode.localName === 'mark')) continue;
      const rest = t.splitText(at);
      rest.splitText(needle.length);
      rest.parentNode.replaceChild(el('mark', { class: 'ev', title }, rest.nodeValue), rest);
      break;
    }
  }
  return root;
}

// A body or comment: its Markdown rendered (evidence marked), the source with its highlights
// under a disclosure; the highlighted text alone when the server did not render it (too long).
function markdownBlock(text, html, ranges) {
  if (html === null || html === undefined) return highlighted(text, ranges);
  const marks = (ranges || []).filter(([s, e]) => s < e && e <= text.length).map(([s, e, title]) => [text.slice(s, e), title]);
  return el('div', { class: 'md-block' },
    markStrings(safeHtml(html, 'md'), marks),
    el('details', { class: 'md-source' }, el('summary', {}, 'Markdown source'), highlighted(text, ranges)));
}

// ---- Session

async function loadSession() {
  state.session = await api('/api/session');
  const who = document.getElementById('who');
  who.textContent = state.session.annotator ? 'annotator: ' + state.session.annotator : '';
  document.getElementById('login-button').textContent = state.session.annotator ? 'Switch' : 'Log in';
  if (state.session.readonly) who.textContent += ' (read-only)';
  // A team member is who their token says: no name to type or switch to.
  if (state.session.team) {
    who.textContent += ' (' + state.session.role + ')';
    document.getElementById('login').style.display = 'none';
  }
}

async function login(ev) {
  ev.preventDefault();
  const name = document.getElementById('login-name').value.trim();
  try {
    await api('/api/login', { json: { annotator: name } });
    document.getElementById('login-name').value = '';
    showError('');
    await loadSession();
    route();
  } catch (e) { showError(e.message); }
}

// ---- Issues list

async function viewIssues(params) {
  const s = state.session;
  const form = el('form', { class: 'filters', id: 'filters' });
  const field = (label, input) => el('label', {}, label, input);
  const labelsOf = (d) => dimension(d).labels.map((l) => [l.id, l.title]);
  const converters = [...new Set(s.repositories.map((r) => r.converter))].sort();
  form.append(
    field('search', el('input', { type: 'search', name: 'q', id: 'search', value: params.q || '', placeholder: 'text or code, e.g. torch.onnx.export opset_version=11' })),
    field('repository', select('repo', s.repositories.map((r) => r.repo), params.repo, 'all')),
    field('converter', select('converter', converters, params.converter, 'all')),
    field('state', select('state', ['open', 'closed'], params.state, 'any')),
    field('label source', select('source', s.sources, params.source, '–')),
    field('symptom', select('symptom', labelsOf('symptom'), params.symptom, 'any')),
    field('cause', select('cause', labelsOf('cause'), params.cause, 'any')),
    field('stage', select('stage', labelsOf('stage'), params.stage, 'any')),
    field('conf. ≥', el('input', { class: 'num', name: 'min_confidence', value: params.min_confidence || '' })),
    field('conf. ≤', el('input', { class: 'num', name: 'max_confidence', value: params.max_confidence || '' })),
    field('compare with', select('compare', s.sources, params.compare, '–')),
    field('sources', select('agreement', [['agree', 'agree'], ['disagree', 'disagree']], params.agreement, 'any')),
    field('repro verdict', select('verdict', ['crash_reproduced', 'wrong_output_reproduced', 'not_reproduced', 'not_runnable'], params.verdict, 'any')),
    el('button', { class: 'primary', type: 'submit' }, 'Search'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = {};
    for (const [k, v] of new FormData(form).entries()) if (v) p[k] = v;
    location.hash = '#/?' + query(p);
  });
  show(el('h1', {}, 'Issues'), form, el('p', { class: 'muted' }, 'Loading…'));
  const data = await api('/api/issues?' + query(Object.assign({ per_page: 25 }, params)));
  const table = el('table', { class: 'issues', id: 'issue-table' },
    el('tr', {}, el('th', {}, 'issue'), el('th', {}, 'title'), el('th', {}, 'converter'),
      el('th', {}, 'state'), el('th', {}, 'created'), el('th', {}, data.issues.length && data.issues[0].source_labels ? 'labels' : 'GitHub labels')));
  for (const i of data.issues) {
    const title = el('td', {}, el('a', { href: issuePath(i.repo, i.number), class: 'issue-link' }, i.title || '(no title)'));
    for (const sn of i.snippets || []) title.appendChild(snippet(sn.where + ': ' + sn.text));
    const labels = i.source_labels
      ? s.manual_dimensions.filter((d) => i.source_labels[d]).map((d) => el('span', { class: 'pill', title: d }, i.source_labels[d]))
      : i.labels.map((l) => el('span', { class: 'pill' }, l));
    table.appendChild(el('tr', {}, el('td', {}, i.repo + '#' + i.number), title, el('td', {}, i.converter),
      el('td', {}, i.state || ''), el('td', {}, (i.created_at || '').slice(0, 10)), el('td', {}, labels)));
  }
  const pages = Math.max(1, Math.ceil(data.total / data.per_page));
  const go = (page) => { location.hash = '#/?' + query(Object.assign({}, params, { page })); };
  const pager = el('div', { class: 'pager' },
    el('button', { disabled: data.page <= 1, onclick: () => go(data.page - 1) }, '← previous'),
    el('span', { id: 'page-info' }, `page ${data.page} of ${pages} · ${data.total} issue(s)`),
    el('button', { disabled: data.page >= pages, onclick: () => go(data.page + 1) }, 'next →'));
  show(el('h1', {}, 'Issues'), form, pager, table);
}

// ---- One issue

function issueBody(d) {
  const parts = [el('h1', { id: 'issue-title' }, highlighted(d.title, d.highlights.title, 'title-text'))];
  parts.push(el('p', { class: 'meta' },
    `${d.repo}#${d.number} · ${d.state || 'unknown state'} · opened ${(d.created_at || '').slice(0, 10)} by ${d.author || 'unknown'} · ${d.converter} · `,
    d.github_url && /^https:\/\/github\.com\//.test(d.github_url) ? el('a', { href: d.github_url, rel: 'noopener noreferrer', target: '_blank', id: 'github-link' }, 'on GitHub') : 'no GitHub link',
    d.labels.length ? ' · ' : '', d.labels.map((l) => el('span', { class: 'pill' }, l))));
  parts.push(el('h2', {}, 'Body'), el('div', { id: 'issue-body' }, markdownBlock(d.body || '', d.body_html, d.highlights.body)));
  if (d.comments.length) {
    parts.push(el('h2', {}, `Comments (${d.comments.length})`));
    d.comments.forEach((c, i) => parts.push(el('div', { class: 'comment' },
      el('div', { class: 'who' }, `${c.author || '?'} (${c.author_association || ''}) · ${(c.created_at || '').slice(0, 10)}`),
      markdownBlock(c.body || '', (d.comments_html || [])[i], d.highlights.comments[i]))));
  }
  if (d.timeline.length) {
    parts.push(el('h2', {}, 'Timeline'));
    const t = el('table', {}, el('tr', {}, el('th', {}, 'when'), el('th', {}, 'event'), el('th', {}, 'actor'), el('th', {}, 'detail')));
    for (const e of d.timeline)
      t.appendChild(el('tr', {}, el('td', {}, (e.created_at || '').slice(0, 16)), el('td', {}, e.event || ''), el('td', {}, e.actor || ''),
        el('td', {}, e.commit_id ? 'commit ' + e.commit_id.slice(0, 10) : e.source_repo ? `${e.source_repo}#${e.source_number}` : '')));
    parts.push(el('div', { class: 'scroll' }, t));
  }
  return parts;
}

// A table with fixed column widths ([[header, width], ...]): words wrap at spaces and only a
// token longer than its column (a path, a rule id) is broken.
function fixedTable(id, columns) {
  return el('table', { id, class: 'fixed' },
    el('colgroup', {}, columns.map(([, width]) => el('col', { class: 'w-' + width }))),
    el('tr', {}, columns.map(([title]) => el('th', {}, title))));
}

// "2024-05-01 10:22" from an ISO time.
function when(iso) { return (iso || '').slice(0, 16).replace('T', ' '); }

function issueSide(d) {
  const side = [];
  side.push(el('h2', {}, 'Classifier'));
  if (!d.classifier) side.push(el('p', { class: 'muted' }, 'not classified yet (convfail classify)'));
  else {
    const t = fixedTable('classifier-labels', [['dimension', 25], ['label', 45], ['confidence', 30]]);
    for (const [dim, l] of Object.entries(d.classifier.dimensions)) {
      const c = l.probability !== null ? l.probability : l.confidence;
      t.appendChild(el('tr', {}, el('td', {}, dim), el('td', {}, l.label ? labelTitle(dim, l.label) : 'abstained', l.subtype ? ' / ' + labelTitle('subtype', l.subtype) : ''),
        el('td', { class: 'num' }, fmt(c), el('span', { class: 'conf' }, el('span', { style: null })))));
      t.lastChild.querySelector('.conf > span').style.width = Math.round(100 * c) + '%';
    }
    side.push(t);
    // Evidence with a matched text; priors (rules that fire on any issue) have none worth showing.
    const spans = d.classifier.evidence.filter((e) => e.matched_text.length > 1);
    if (spans.length) {
      const ev = fixedTable('evidence', [['evidence', 45], ['label · rule · field', 55]]);
      for (const e of spans.slice(0, 30))
        ev.appendChild(el('tr', {}, el('td', {}, el('mark', { class: 'ev' }, e.matched_text)),
          el('td', {}, el('div', {}, `${e.dimension} = ${e.label}`), el('div', { class: 'muted small' }, `${e.rule} · ${e.field}`))));
      side.push(ev);
    }
  }
  side.push(el('h2', {}, 'Facts'));
  side.push(d.facts.length ? el('div', {}, d.facts.map((f) => el('span', { class: 'pill', title: f.kind }, `${f.kind}: ${f.value}`))) : el('p', { class: 'muted' }, 'none extracted'));
  side.push(el('h2', {}, d.blind ? 'Your manual labels' : 'Manual labels'));
  if (d.blind) side.push(el('p', { class: 'muted', id: 'blind-note' }, 'Other raters\' labels are hidden (blind labeling); compare them on ', el('a', { href: '#/agreement' }, 'Agreement'), ' and ', el('a', { href: '#/adjudicate' }, 'Adjudicate'), '.'));
  if (!d.history.length) side.push(el('p', { class: 'muted' }, d.blind ? 'none from you yet' : 'no manual label yet'));
  else {
    const h = fixedTable('history', [['when', 25], ['who', 20], ['dimension', 25], ['value', 30]]);
    for (const r of d.history)
      h.appendChild(el('tr', {}, el('td', {}, when(r.created_at)), el('td', {}, r.annotator), el('td', {}, r.dimension),
        el('td', {}, r.kind === 'label' ? (r.value ? labelTitle(r.dimension, r.value) : '–') : `${r.kind}${r.value ? ': ' + labelTitle(r.dimension, r.value) : ''}`,
          r.note ? el('div', { class: 'muted' }, 'note: ' + r.note) : null)));
    side.push(h);
  }
  side.push(el('h2', {}, 'Repro verdicts'));
  // One row per program re-run (the script, each model): its latest verdict, when, how many runs.
  const programs = d.repro_programs || [];
  if (!programs.length && !(d.runtime_history || []).length) side.push(el('p', { class: 'muted' }, 'not re-executed'));
  else {
    // The ONNX Runtime releases column: the stored bisects of the program's model (by file name).
    const runtime = d.runtime_history || [];
    const releases = (name) => runtime.filter((h) => h.model === name).map((h) => h.summary).join('; ');
    const r = fixedTable('repro', [['program', 25], ['latest verdict', 25], ['message', 30], ['ONNX Runtime releases', 20]]);
    for (const p of programs) {
      const v = p.latest;
      r.appendChild(el('tr', { class: 'repro-program' },
        el('td', {}, el('div', {}, p.name), el('div', { class: 'muted small' }, `${p.runs} run${p.runs === 1 ? '' : 's'} · ${when(p.latest_at)}`)),
        el('td', {}, el('div', { class: 'verdict' }, v.verdict.replace(/_/g, ' ')), v.step ? el('div', { class: 'muted small' }, v.step) : null),
        el('td', {}, v.message || v.signature || v.reason || '',
          v.traceback ? el('details', {}, el('summary', {}, 'traceback'), el('pre', { class: 'traceback' }, v.traceback)) : null),
        el('td', { class: 'releases' }, p.kind === 'model' ? releases(p.name) || 'not bisected' : '–')));
    }
    for (const h of runtime.filter((x) => !programs.some((p) => p.name === x.model)))
      r.appendChild(el('tr', { class: 'repro-program' }, el('td', {}, h.model), el('td', { class: 'muted' }, 'bisected only'), el('td', {}, ''), el('td', { class: 'releases' }, h.summary)));
    side.push(r);
  }
  return side;
}

async function viewIssue(repo, number) {
  const d = await api(`/api/issues/${repo}/${number}`);
  show(el('div', { class: 'grid' }, el('div', {}, issueBody(d)), el('div', { class: 'side' }, issueSide(d))));
}

// ---- Annotate

function needLogin() {
  show(el('h1', {}, 'Log in first'), el('p', {}, 'Type your annotator name at the top right: every label you give is stored under it.'));
}

async function viewAnnotate(params, mode) {
  if (!state.session.annotator) return needLogin();
  if (state.session.readonly) return show(el('p', {}, 'The server is read-only.'));
  const form = el('form', { class: 'filters', id: 'queue-form' });
  form.append(el('label', {}, 'queue', select('queue', state.session.queues, params.queue || 'unlabeled')),
    el('label', {}, 'size', el('input', { class: 'num', name: 'size', value: params.size || '50' })),
    el('label', {}, 'seed (sample)', el('input', { class: 'num', name: 'seed', value: params.seed || '1' })));
  form.append(el('button', { class: 'primary', type: 'submit', id: 'start' }, 'Start'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = {};
    for (const [k, v] of new FormData(form).entries()) if (v) p[k] = v;
    p.go = '1';
    location.hash = `#/${mode}?` + query(p);
  });
  const keys = el('p', { class: 'keys' }, 'Keys: the key beside each choice picks it (', el('kbd', {}, '1'), '–', el('kbd', {}, '9'), ', ', el('kbd', {}, '0'),
    ', then ', el('kbd', {}, 'a'), ', ', el('kbd', {}, 'b'), '…; its definition is shown under it, an example on hover) · ',
    el('kbd', {}, 'Enter'), ' accept the suggestion · ', el('kbd', {}, 's'), ' skip issue · ', el('kbd', {}, 'u'), ' undo · ', el('kbd', {}, 'n'), ' note');
  if (!params.go) return show(el('h1', {}, 'Annotate'), form, keys);
  const q = await api('/api/queue?' + query(Object.assign({ mode }, params)));
  state.annotate = { mode, items: q.items, item: 0, step: 0, questions: null, written: [], note: null, issue: null };
  show(el('h1', {}, 'Annotate'), form, keys, el('div', { id: 'annotate-area' }));
  await showQuestion();
}

// The questions of a queue item in the order they are asked, with the choices of each
// ({id, title, definition, example}): the server's answer (labeling's order: subtype only when
// the cause has subtypes), never derived here. `extra`: mode, annotators, cause (adjudicate).
async function questionsOf(item, extra) {
  const asked = { dimensions: item.dimensions.join(',') };
  const r = await api(`/api/issues/${item.repo}/${item.number}/questions?` + query(Object.assign(asked, extra || {})));
  return r.questions;
}

// The key of the i-th choice: 1-9, 0, then letters other than the command keys (s, u, n).
const CHOICE_KEYS = '1234567890abcdefghijklmopqrtvwxyz';
function choiceKey(i) { return CHOICE_KEYS[i] || ''; }

async function showQuestion() {
  const a = state.annotate;
  const area = document.getElementById('annotate-area');
  if (!area) return;
  if (a.item >= a.items.length) {
    area.replaceChildren(el('p', { id: 'queue-done' }, `Queue done: ${a.items.length} issue(s). `, el('a', { href: '#/' }, 'back to the issues')));
    return;
  }
  const item = a.items[a.item];
  // Blind labeling: only the adjudicate view asks for the other raters' labels (blind=0).
  // The questions depend on the answers stored so far (the cause): asked again with the issue.
  if (!a.issue || a.issue.repo !== item.repo || a.issue.number !== item.number)
    [a.issue, a.questions] = await Promise.all([api(`/api/issues/${item.repo}/${item.number}`), questionsOf(item)]);
  const d = a.issue;
  const questions = a.questions;
  if (a.step >= questions.length) { a.item += 1; a.step = 0; a.issue = null; return showQuestion(); }
  const dim = questions[a.step].dimension;
  const options = questions[a.step].choices.map((c) => [c.id, c.title, c.definition || '', c.example || '']);
  let suggestion = null;
  if (d.classifier && d.classifier.dimensions[dim === 'subtype' ? 'cause' : dim]) {
    const c = d.classifier.dimensions[dim === 'subtype' ? 'cause' : dim];
    suggestion = dim === 'subtype' ? c.subtype : c.label;
  }
  a.current = { dim, options, suggestion, item };
  const box = el('div', { class: 'ask', id: 'ask' },
    el('div', { class: 'progress' }, `issue ${a.item + 1} of ${a.items.length} · question ${a.step + 1} of ${questions.length}`),
    el('h2', {}, `${dim}`),
    el('div', { class: 'options' }, options.map(([id, title, definition, example], i) => el('button', {
      type: 'button', class: id === suggestion ? 'suggested' : null, 'data-label': id, 'data-key': choiceKey(i),
      title: example ? 'e.g. ' + example : null, onclick: () => answer(id),
    }, el('kbd', {}, choiceKey(i)), title, id === suggestion ? ' (suggested)' : '',
    definition ? el('span', { class: 'def' }, definition) : null))),
    el('p', {}, el('button', { type: 'button', onclick: () => skip() }, 'skip (s)'), ' ', el('button', { type: 'button', onclick: () => undo() }, 'undo (u)')),
    el('label', {}, 'note (n): ', el('input', { id: 'note', value: a.note || '', onkeydown: (ev) => { if (ev.key === 'Enter' || ev.key === 'Escape') { ev.preventDefault(); a.note = ev.target.value || null; ev.target.blur(); } } })),
    el('p', { class: 'last', id: 'last' }, a.last || ''));
  area.replaceChildren(el('div', { class: 'grid' }, el('div', {}, issueBody(d)), el('div', { class: 'side' }, box, issueSide(d))));
}

async function post(body) {
  const a = state.annotate;
  const item = a.current.item;
  const note = document.getElementById('note');
  if (note && note.value) body.note = note.value;
  const r = await api('/api/labels', { json: Object.assign({ repo: item.repo, number: item.number }, body) });
  a.note = null;
  return r;
}

async function answer(value) {
  const a = state.annotate;
  const kind = 'label';
  try {
    const r = await post({ kind, dimension: a.current.dim, value });
    a.written.push({ rows: r.row_ids, item: a.item, step: a.step });
    a.last = `${a.current.item.repo}#${a.current.item.number} ${a.current.dim} = ${value}`;
    a.issue = null;  // reload: the subtype question depends on the cause just given
    a.step += 1;
    showError('');
    await showQuestion();
  } catch (e) { showError(e.message); }
}

async function skip() {
  const a = state.annotate;
  try {
    const r = await post({ kind: 'skip', dimension: a.current.dim });
    a.written.push({ rows: r.row_ids, item: a.item, step: a.step });
    a.last = `skipped ${a.current.item.repo}#${a.current.item.number}`;
    a.item += 1; a.step = 0; a.issue = null;
    await showQuestion();
  } catch (e) { showError(e.message); }
}

async function undo() {
  const a = state.annotate;
  const last = a.written.pop();
  if (!last) { a.last = 'nothing to undo'; return showQuestion(); }
  try {
    const item = a.items[last.item];
    for (const row of last.rows.slice().reverse())
      await api('/api/labels', { json: { repo: item.repo, number: item.number, kind: 'undo', row_id: row } });
    a.item = last.item; a.step = last.step; a.issue = null;
    a.last = `undone: ${item.repo}#${item.number}`;
    await showQuestion();
  } catch (e) { showError(e.message); }
}

function onKey(ev) {
  const a = state.annotate;
  if (!a || !a.current || !document.getElementById('ask')) return;
  const t = ev.target;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const k = ev.key;
  const i = k.length === 1 ? CHOICE_KEYS.indexOf(k) : -1;
  if (i >= 0 && i < a.current.options.length) { ev.preventDefault(); answer(a.current.options[i][0]); }
  else if (k === 'Enter') {
    ev.preventDefault();
    if (a.current.suggestion) answer(a.current.suggestion);
    else showError('no suggestion here: pick a label with the key beside it');
  } else if (k === 's') { ev.preventDefault(); skip(); }
  else if (k === 'u') { ev.preventDefault(); undo(); }
  else if (k === 'n') { ev.preventDefault(); document.getElementById('note').focus(); }
}

// ---- Adjudicate: per issue the raters' labels side by side and one decision per dimension

async function viewAdjudicate(params) {
  const s = state.session;
  if (!s.annotator) return needLogin();
  if (s.readonly) return show(el('p', {}, 'The server is read-only.'));
  const chosen = (params.annotators || '').split(',').filter((x) => s.annotators.includes(x));
  const form = el('form', { class: 'filters', id: 'queue-form' },
    el('fieldset', { class: 'raters' }, el('legend', {}, 'raters to compare (two or more)'),
      s.annotators.length ? s.annotators.map((x) => el('label', { class: 'check' },
        el('input', { type: 'checkbox', name: 'annotators', value: x, checked: chosen.includes(x) }), x))
        : el('span', { class: 'muted' }, 'no manual labels yet')),
    el('button', { class: 'primary', type: 'submit', id: 'start' }, 'Start'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const picked = new FormData(form).getAll('annotators');
    if (picked.length < 2) return showError('pick at least two raters');
    location.hash = '#/adjudicate?' + query({ annotators: picked.join(','), go: '1' });
  });
  const intro = el('p', { class: 'keys' }, 'The issues where the raters disagree, one at a time: their labels side by side; ' +
    'choose the label that holds for each disputed dimension. Your decision is stored as an adjudication under your name.');
  if (!params.go || chosen.length < 2) return show(el('h1', {}, 'Adjudicate'), form, intro);
  const q = await api('/api/queue?' + query({ mode: 'adjudicate', annotators: chosen.join(',') }));
  state.adjudicate = { items: q.items, item: 0, raters: chosen, last: '' };
  show(el('h1', {}, 'Adjudicate'), form, intro, el('div', { id: 'annotate-area' }));
  await showDispute();
}

// The choices of a dimension among the server's questions: [id, title]; none when it asks no
// such question (the subtype of a cause without subtypes).
function choicesOf(questions, dim) {
  const q = questions.find((x) => x.dimension === dim);
  return q ? q.choices.map((c) => [c.id, c.title]) : [];
}

function decisionSelect(dim, choices, picks, current) {
  const box = el('select', { name: dim, 'data-dimension': dim, class: 'decision', onchange: () => showError('') }, el('option', { value: '' }, '— choose —'));
  for (const [id, title] of choices) {
    const who = picks.filter(([, v]) => v === id).map(([r]) => r);
    box.appendChild(el('option', { value: id, selected: id === current }, title + (who.length ? ' · ' + who.join(', ') : '')));
  }
  return box;
}

async function showDispute() {
  const a = state.adjudicate;
  const s = state.session;
  const area = document.getElementById('annotate-area');
  if (!area) return;
  const last = el('p', { class: 'last', id: 'last' }, a.last);
  if (a.item >= a.items.length) {
    area.replaceChildren(last, el('p', { id: 'queue-done' }, a.items.length ? `Done: ${a.items.length} issue(s) adjudicated or skipped. ` : 'No disagreement left between these raters. ',
      el('a', { href: '#/agreement?' + query({ a: a.raters[0], b: a.raters[1] }) }, 'their agreement')));
    return;
  }
  const item = a.items[a.item];
  // The questions of the adjudication: the subtype's cause is the one chosen here, else the
  // first rater's (the server's rule, as the terminal's adjudicate).
  const rated = { mode: 'adjudicate', annotators: a.raters.join(',') };
  const [d, questions] = await Promise.all([api(`/api/issues/${item.repo}/${item.number}?blind=0`), questionsOf(item, rated)]);
  const disputed = item.dimensions.length ? item.dimensions : s.manual_dimensions;
  const valueOf = (who, dim) => ((d.current[who] || {})[dim] || {}).value || null;
  const table = el('table', { id: 'adjudicate-form' },
    el('tr', {}, el('th', {}, 'dimension'), a.raters.map((r) => el('th', { class: 'rater' }, r)), el('th', {}, 'your decision')));
  for (const dim of s.manual_dimensions) {
    const picks = a.raters.map((r) => [r, valueOf(r, dim)]);
    const open = disputed.includes(dim);
    if (!open && picks.every(([, v]) => v === null)) continue;  // e.g. no subtype for this cause
    const cells = picks.map(([, v]) => el('td', { class: open ? 'diff' : null }, v ? labelTitle(dim, v) : '–'));
    const decision = open ? el('td', {}, decisionSelect(dim, choicesOf(questions, dim), picks, null)) : el('td', { class: 'muted' }, 'agreed');
    table.appendChild(el('tr', { 'data-dimension': dim }, el('th', { scope: 'row' }, dim), cells, decision));
  }
  // The subtype choices follow the cause chosen: the server's questions given that cause (a
  // decision is saved once they are in).
  const causeSelect = table.querySelector('select[name=cause]');
  let choicesReady = Promise.resolve();
  if (causeSelect && table.querySelector('select[name=subtype]'))
    causeSelect.addEventListener('change', () => {
      const cause = causeSelect.value;
      choicesReady = questionsOf(item, Object.assign({ cause }, rated)).then((asked) => {
        if (causeSelect.value !== cause) return;  // changed again meanwhile: that answer follows
        const picks = a.raters.map((r) => [r, valueOf(r, 'subtype')]);
        table.querySelector('select[name=subtype]').replaceWith(decisionSelect('subtype', choicesOf(asked, 'subtype'), picks, null));
      }, (e) => showError(e.message));
    });
  const note = el('input', { id: 'note', name: 'note', placeholder: 'why (optional)', maxlength: '2000' });
  const form = el('form', { id: 'decision-form', class: 'ask' },
    el('div', { class: 'progress' }, `issue ${a.item + 1} of ${a.items.length} · ${item.repo}#${item.number}`),
    el('div', { class: 'scroll' }, table),
    el('label', {}, 'note ', note),
    el('p', {}, el('button', { class: 'primary', type: 'submit', id: 'decide' }, 'Save decision'), ' ',
      el('button', { type: 'button', id: 'skip-dispute', onclick: () => { a.item += 1; a.last = `skipped ${item.repo}#${item.number}`; showDispute(); } }, 'Skip')),
    last);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await choicesReady;
    const body = { repo: item.repo, number: item.number, kind: 'adjudication' };
    const missing = [];
    for (const sel of form.querySelectorAll('select.decision')) {
      if (sel.value) body[sel.name] = sel.value;
      else if (sel.options.length > 1) missing.push(sel.name);
    }
    if (missing.length) return showError('choose a label for ' + missing.join(', '));
    if (note.value) body.note = note.value;
    try {
      await api('/api/labels', { json: body });
      showError('');
      a.last = `${item.repo}#${item.number}: ` + Object.keys(body).filter((k) => s.manual_dimensions.includes(k)).map((k) => `${k} = ${body[k]}`).join(', ');
      a.item += 1;
      await showDispute();
    } catch (e) { showError(e.message); }
  });
  area.replaceChildren(el('div', { class: 'grid' }, el('div', {}, issueBody(d)), el('div', { class: 'side' }, form, issueSide(d))));
}

// ---- Agreement

async function viewAgreement(params) {
  const s = state.session;
  const names = s.sources.concat(s.annotators.filter((x) => !s.sources.includes(x)));
  const form = el('form', { class: 'filters', id: 'agreement-form' },
    el('label', {}, 'source A', select('a', names, params.a || names[0])),
    el('label', {}, 'source B', select('b', names, params.b || names[1])),
    el('button', { class: 'primary', type: 'submit' }, 'Compare'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    location.hash = '#/agreement?' + query(Object.fromEntries(new FormData(form).entries()));
  });
  if (!params.a || !params.b) return show(el('h1', {}, 'Agreement'), form);
  const r = await api('/api/agreement?' + query(params));
  const parts = [el('h1', {}, 'Agreement'), form];
  const summary = el('table', { id: 'kappa-table' }, el('tr', {}, el('th', {}, 'dimension'), el('th', { class: 'num' }, 'n'), el('th', { class: 'num' }, 'agreement'),
    el('th', { class: 'num' }, 'κ'), el('th', { class: 'num' }, '95% CI')));
  const order = (x) => { const i = s.manual_dimensions.indexOf(x[0]); return i < 0 ? 99 : i; };
  const dims = Object.entries(r.dimensions).sort((x, y) => order(x) - order(y));
  for (const [dim, d] of dims)
    summary.appendChild(el('tr', {}, el('td', {}, dim), el('td', { class: 'num' }, d.n), el('td', { class: 'num' }, fmt(d.agreement, 3)),
      el('td', { class: 'num kappa', 'data-dimension': dim }, fmt(d.kappa, 3)), el('td', { class: 'num' }, d.ci95 ? `[${fmt(d.ci95[0], 3)}, ${fmt(d.ci95[1], 3)}]` : '–')));
  parts.push(el('h2', {}, `${r.annotators[0]} vs ${r.annotators[1]}`), summary);
  for (const [dim, d] of dims) {
    if (!d.confusion) continue;
    const labels = d.confusion.labels;
    const t = el('table', {}, el('tr', {}, el('th', {}, `${r.annotators[0]} ↓ / ${r.annotators[1]} →`), labels.map((l) => el('th', {}, l))));
    labels.forEach((l, i) => t.appendChild(el('tr', {}, el('th', {}, l), d.confusion.counts[i].map((c, j) => el('td', { class: 'num' + (i !== j && c ? ' diff' : '') }, c)))));
    parts.push(el('h2', {}, `Confusion: ${dim}`), el('div', { class: 'scroll' }, t));
  }
  show(...parts);
}

// ---- Report

async function viewReport(params) {
  const s = state.session;
  const form = el('form', { class: 'filters', id: 'report-form' },
    el('label', {}, 'label source', select('source', s.sources, params.source || s.sources[0])),
    el('label', {}, 'compare with', select('compare', s.sources, params.compare, '–')),
    el('label', {}, 'trend periods', select('by', ['year', 'quarter'], params.by || 'year')),
    el('button', { class: 'primary', type: 'submit' }, 'Show'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = {};
    for (const [k, v] of new FormData(form).entries()) if (v) p[k] = v;
    location.hash = '#/report?' + query(p);
  });
  if (!s.sources.length) return show(el('h1', {}, 'Report'), el('p', {}, 'No label source yet: classify or label issues first.'));
  const p = { source: params.source || s.sources[0], compare: params.compare, by: params.by };
  // The renderer's own HTML (tables 8/9/10, subtypes, trends, SVG charts) shown in the page, in
  // its font, through the allow-list (safeHtml): its <style> and <title> are left out.
  const html = await apiText('/api/report?' + query(Object.assign({ format: 'html' }, p)));
  const downloads = el('p', { class: 'downloads' }, 'Download: ',
    ['md', 'csv', 'latex', 'json', 'html'].map((f) => el('a', { href: '/api/report?' + query(Object.assign({ format: f, download: '1' }, p)), download: '' }, f)));
  const report = safeHtml(html, 'report');
  report.id = 'report';
  show(el('h1', {}, 'Report'), form, downloads, report);
}

// ---- Campaigns (`convfail test`): the list, and each one's report as `report --campaign` prints it

async function viewCampaigns() {
  const data = await api('/api/campaigns');
  const OUTCOMES = data.outcomes;  // the server's classes, in its order
  if (!data.campaigns.length)
    return show(el('h1', {}, 'Campaigns'), el('p', {}, 'No campaign yet: run one with ', el('code', {}, 'convfail test run'), '.'));
  const t = el('table', { id: 'campaign-table' }, el('tr', {}, el('th', {}, 'campaign'), el('th', {}, 'started'), el('th', {}, 'state'),
    el('th', { class: 'num' }, 'models'), OUTCOMES.map((o) => el('th', { class: 'num' }, o.replace(/_/g, ' '))), el('th', { class: 'num' }, 'groups'),
    el('th', {}, 'versions')));
  for (const c of data.campaigns) {
    const v = c.versions || {};
    t.appendChild(el('tr', {}, el('td', {}, el('a', { href: '#/campaign/' + c.id, class: 'campaign-link' }, 'campaign ' + c.id)),
      el('td', {}, when(c.created_at)), el('td', {}, c.finished ? 'finished ' + when(c.finished_at) : 'unfinished'),
      el('td', { class: 'num' }, c.models), OUTCOMES.map((o) => el('td', { class: 'num' }, (c.outcomes || {})[o] || 0)),
      el('td', { class: 'num' }, c.groups),
      el('td', { class: 'small' }, Object.entries(v).filter(([, x]) => typeof x === 'string').map(([k, x]) => `${k} ${x}`).join(' · '))));
  }
  show(el('h1', {}, 'Campaigns'), el('div', { class: 'scroll' }, t));
}

// "Compare with campaign [B]": the comparison of this campaign (A) with another of the database.
async function compareForm(id) {
  const data = await api('/api/campaigns');
  const others = data.campaigns.filter((c) => String(c.id) !== String(id));
  if (!others.length) return el('p', {}, 'No other campaign to compare with.');
  const select = el('select', { id: 'compare-with', 'aria-label': 'campaign B' },
    others.map((c) => el('option', { value: String(c.id) }, 'campaign ' + c.id)));
  const form = el('form', { id: 'compare-form' }, 'Compare with ', select, ' ',
    el('button', { type: 'submit' }, 'compare'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/campaign/${id}/compare/${select.value}`;
  });
  return form;
}

async function viewCampaign(id) {
  const html = await apiText('/api/campaigns/' + id + '?format=html');
  const downloads = el('p', { class: 'downloads' }, 'Download: ',
    ['md', 'csv', 'latex', 'json', 'html'].map((f) => el('a', { href: `/api/campaigns/${id}?` + query({ format: f, download: '1' }), download: '' }, f)));
  const report = safeHtml(html, 'report campaign');
  report.id = 'campaign-report';
  show(el('h1', {}, `Campaign ${id}`), el('p', {}, el('a', { href: '#/campaigns' }, '← all campaigns')), await compareForm(id), downloads, report);
}

// What changed from campaign A to campaign B (`convfail test compare A B`).
async function viewCampaignCompare(a, b) {
  const path = `/api/campaigns/${a}/compare/${b}`;
  const html = await apiText(path + '?format=html');
  const downloads = el('p', { class: 'downloads' }, 'Download: ',
    ['md', 'csv', 'latex', 'json', 'html'].map((f) => el('a', { href: path + '?' + query({ format: f, download: '1' }), download: '' }, f)));
  const report = safeHtml(html, 'report campaign-compare');
  report.id = 'campaign-compare';
  show(el('h1', {}, `Campaign ${a} → campaign ${b}`),
    el('p', {}, el('a', { href: '#/campaign/' + a }, '← campaign ' + a), ' · ', el('a', { href: '#/campaign/' + b }, 'campaign ' + b)),
    downloads, report);
}

// ---- The support matrix (`convfail test support`): what each release runs, measured

async function viewSupport() {
  const data = await api('/api/support');
  if (!data.matrices.length)
    return show(el('h1', {}, 'Support matrix'), el('p', {}, 'No support matrix yet: measure one with ', el('code', {}, 'convfail test support'), '.'));
  const t = el('table', { id: 'support-table' }, el('tr', {}, el('th', {}, 'onnxruntime'), el('th', {}, 'torch'), el('th', {}, 'onnx'),
    data.classes.map((c) => el('th', { class: 'num' }, c.replace(/_/g, ' ')))));
  for (const m of data.matrices)
    t.appendChild(el('tr', {}, el('td', {}, m.onnxruntime), el('td', {}, m.torch), el('td', {}, m.onnx),
      data.classes.map((c) => el('td', { class: 'num' }, (m.cells_per_class || {})[c] || 0))));
  const html = await apiText('/api/support?format=html');
  const downloads = el('p', { class: 'downloads' }, 'Download: ',
    ['md', 'csv', 'latex', 'json', 'html'].map((f) => el('a', { href: '/api/support?' + query({ format: f, download: '1' }), download: '' }, f)));
  const report = safeHtml(html, 'report support');
  report.id = 'support-report';
  show(el('h1', {}, 'Support matrix'), el('div', { class: 'scroll' }, t), downloads, report);
}

// ---- Routing

async function route() {
  const hash = location.hash || '#/';
  const [path, qs] = hash.slice(1).split('?');
  const params = Object.fromEntries(new URLSearchParams(qs || '').entries());
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', path.startsWith('/' + a.dataset.nav) || (path === '/' && a.dataset.nav === 'issues') || (path.startsWith('/campaign/') && a.dataset.nav === 'campaigns'));
  state.annotate = null;
  state.adjudicate = null;
  showError('');
  try {
    if (!state.session) await loadSession();
    const m = path.match(/^\/issue\/([^/]+)\/([^/]+)\/(\d+)$/);
    if (m) return await viewIssue(m[1] + '/' + m[2], m[3]);
    if (path === '/annotate') return await viewAnnotate(params, 'annotate');
    if (path === '/adjudicate') return await viewAdjudicate(params);
    if (path === '/agreement') return await viewAgreement(params);
    if (path === '/report') return await viewReport(params);
    if (path === '/campaigns') return await viewCampaigns();
    if (path === '/support') return await viewSupport();
    const c = path.match(/^\/campaign\/(\d+)$/);
    if (c) return await viewCampaign(c[1]);
    const cc = path.match(/^\/campaign\/(\d+)\/compare\/(\d+)$/);
    if (cc) return await viewCampaignCompare(cc[1], cc[2]);
    return await viewIssues(params);
  } catch (e) {
    showError(e.message);
    // Never the previous view under the error (a bad issue link would seem to show that one).
    show(el('p', { class: 'failed-view' }, 'Could not load this view. ', el('a', { href: '#/' }, 'Back to the issues')));
  }
}

window.addEventListener('hashchange', route);
document.addEventListener('keydown', onKey);
document.getElementById('login').addEventListener('submit', login);
route();
