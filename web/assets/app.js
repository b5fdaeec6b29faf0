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

// ---- Session

async function loadSession() {
  state.session = await api('/api/session');
  const who = document.getElementById('who');
  who.textContent = state.session.annotator ? 'annotator: ' + state.session.annotator : '';
  document.getElementById('login-button').textContent = state.session.annotator ? 'Switch' : 'Log in';
  if (state.session.readonly) who.textContent += ' (read-only)';
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
    d.html_url && /^https:\/\/github\.com\//.test(d.html_url) ? el('a', { href: d.html_url, rel: 'noopener noreferrer', target: '_blank' }, 'on GitHub') : 'no GitHub link',
    d.labels.length ? ' · ' : '', d.labels.map((l) => el('span', { class: 'pill' }, l))));
  parts.push(el('h2', {}, 'Body'), highlighted(d.body || '', d.highlights.body));
  if (d.comments.length) {
    parts.push(el('h2', {}, `Comments (${d.comments.length})`));
    d.comments.forEach((c, i) => parts.push(el('div', { class: 'comment' },
      el('div', { class: 'who' }, `${c.author || '?'} (${c.author_association || ''}) · ${(c.created_at || '').slice(0, 10)}`),
      highlighted(c.body || '', d.highlights.comments[i]))));
  }
  if (d.timeline.length) {
    parts.push(el('h2', {}, 'Timeline'));
    const t = el('table', {}, el('tr', {}, el('th', {}, 'when'), el('th', {}, 'event'), el('th', {}, 'actor'), el('th', {}, 'detail')));
    for (const e of d.timeline)
      t.appendChild(el('tr', {}, el('td', {}, (e.created_at || '').slice(0, 16)), el('td', {}, e.event || ''), el('td', {}, e.actor || ''),
        el('td', {}, e.commit_id ? 'commit ' + e.commit_id.slice(0, 10) : e.source_repo ? `${e.source_repo}#${e.source_number}` : '')));
    parts.push(t);
  }
  return parts;
}

function issueSide(d) {
  const side = [];
  side.push(el('h2', {}, 'Classifier'));
  if (!d.classifier) side.push(el('p', { class: 'muted' }, 'not classified yet (convfail classify)'));
  else {
    const t = el('table', { id: 'classifier-labels' }, el('tr', {}, el('th', {}, 'dimension'), el('th', {}, 'label'), el('th', {}, 'confidence')));
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
      const ev = el('table', { id: 'evidence' }, el('tr', {}, el('th', {}, 'evidence'), el('th', {}, 'rule / field')));
      for (const e of spans.slice(0, 30))
        ev.appendChild(el('tr', {}, el('td', {}, el('mark', { class: 'ev' }, e.matched_text)), el('td', {}, `${e.dimension}=${e.label} · ${e.rule} · ${e.field}`)));
      side.push(ev);
    }
  }
  side.push(el('h2', {}, 'Facts'));
  side.push(d.facts.length ? el('div', {}, d.facts.map((f) => el('span', { class: 'pill', title: f.kind }, `${f.kind}: ${f.value}`))) : el('p', { class: 'muted' }, 'none extracted'));
  side.push(el('h2', {}, d.blind ? 'Your manual labels' : 'Manual labels'));
  if (d.blind) side.push(el('p', { class: 'muted', id: 'blind-note' }, 'Other raters\' labels are hidden (blind labeling); compare them on ', el('a', { href: '#/agreement' }, 'Agreement'), ' and ', el('a', { href: '#/adjudicate' }, 'Adjudicate'), '.'));
  if (!d.history.length) side.push(el('p', { class: 'muted' }, d.blind ? 'none from you yet' : 'no manual label yet'));
  else {
    const h = el('table', { id: 'history' }, el('tr', {}, el('th', {}, 'when'), el('th', {}, 'who'), el('th', {}, 'dimension'), el('th', {}, 'kind'), el('th', {}, 'value')));
    for (const r of d.history)
      h.appendChild(el('tr', {}, el('td', {}, r.created_at.slice(0, 19)), el('td', {}, r.annotator), el('td', {}, r.dimension), el('td', {}, r.kind),
        el('td', {}, r.value || '–', r.note ? el('div', { class: 'muted' }, 'note: ' + r.note) : null)));
    side.push(h);
  }
  side.push(el('h2', {}, 'Repro verdicts'));
  if (!d.repro.length) side.push(el('p', { class: 'muted' }, 'not re-executed'));
  else {
    const r = el('table', {}, el('tr', {}, el('th', {}, 'verdict'), el('th', {}, 'step'), el('th', {}, 'signature')));
    for (const v of d.repro) r.appendChild(el('tr', {}, el('td', {}, v.verdict), el('td', {}, v.step || ''), el('td', {}, v.signature || v.reason || '')));
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
  const adjudicate = mode === 'adjudicate';
  const form = el('form', { class: 'filters', id: 'queue-form' });
  if (adjudicate) {
    form.append(el('label', {}, 'annotators (comma-separated)', el('input', { name: 'annotators', value: params.annotators || state.session.annotators.filter((a) => a !== state.session.annotator).slice(0, 2).join(',') })));
  } else {
    form.append(el('label', {}, 'queue', select('queue', state.session.queues, params.queue || 'unlabeled')),
      el('label', {}, 'size', el('input', { class: 'num', name: 'size', value: params.size || '50' })),
      el('label', {}, 'seed (sample)', el('input', { class: 'num', name: 'seed', value: params.seed || '1' })));
  }
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
  if (!params.go) return show(el('h1', {}, adjudicate ? 'Adjudicate' : 'Annotate'), form, keys);
  const q = await api('/api/queue?' + query(Object.assign({ mode }, params)));
  state.annotate = { mode, items: q.items, item: 0, step: 0, questions: null, written: [], note: null, issue: null };
  show(el('h1', {}, adjudicate ? 'Adjudicate' : 'Annotate'), form, keys, el('div', { id: 'annotate-area' }));
  await showQuestion();
}

// The questions of the current item: its dimensions, subtype only when the cause has subtypes.
function questionsOf(item, current) {
  const dims = item.dimensions.length ? item.dimensions : state.session.manual_dimensions;
  return dims.filter((d) => {
    if (d !== 'subtype') return true;
    const cause = current.cause;
    const l = cause && dimension('cause').labels.find((x) => x.id === cause);
    return !!(l && l.subtypes.length);
  });
}

// [id, title, definition, example] of each choice (the codebook comes with /api/session).
function optionsOf(dim, current) {
  const row = (l) => [l.id, l.title, l.definition || '', l.example || ''];
  if (dim === 'subtype') {
    const l = dimension('cause').labels.find((x) => x.id === current.cause);
    return l ? l.subtypes.map(row) : [];
  }
  return dimension(dim).labels.map(row);
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
  if (!a.issue || a.issue.repo !== item.repo || a.issue.number !== item.number)
    a.issue = await api(`/api/issues/${item.repo}/${item.number}` + (a.mode === 'adjudicate' ? '?blind=0' : ''));
  const d = a.issue;
  const mine = (d.current[state.session.annotator] || {});
  const current = {};
  for (const [dim, v] of Object.entries(mine)) if (v.value) current[dim] = v.value;
  const questions = questionsOf(item, current);
  if (a.step >= questions.length) { a.item += 1; a.step = 0; a.issue = null; return showQuestion(); }
  const dim = questions[a.step];
  const options = optionsOf(dim, current);
  let suggestion = null;
  if (d.classifier && d.classifier.dimensions[dim === 'subtype' ? 'cause' : dim]) {
    const c = d.classifier.dimensions[dim === 'subtype' ? 'cause' : dim];
    suggestion = dim === 'subtype' ? c.subtype : c.label;
  }
  a.current = { dim, options, suggestion, item, questions };
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
  if (state.annotate.mode === 'adjudicate') {
    const cols = Object.entries(d.current).map(([who, dims]) => el('div', {}, el('h2', {}, who),
      el('table', {}, Object.entries(dims).map(([k, v]) => el('tr', { class: k === dim ? 'diff' : null }, el('td', {}, k), el('td', {}, v.value || '–'))))));
    box.insertBefore(el('div', { class: 'side-by-side', id: 'side-by-side' }, cols), box.children[1]);
  }
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
  const kind = a.mode === 'adjudicate' ? 'adjudication' : 'label';
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
  // The renderer's own page (tables 8/9/10, subtypes, trends, SVG charts): fetched first so an
  // error shows as a line here, then framed without scripts.
  await api('/api/report?' + query(Object.assign({ format: 'json' }, p)));
  const downloads = el('p', { class: 'downloads' }, 'Download: ',
    ['md', 'csv', 'latex', 'json', 'html'].map((f) => el('a', { href: '/api/report?' + query(Object.assign({ format: f, download: '1' }, p)), download: '' }, f)));
  show(el('h1', {}, 'Report'), form, downloads,
    el('iframe', { class: 'report', id: 'report-frame', sandbox: '', title: 'report', src: '/api/report?' + query(Object.assign({ format: 'html' }, p)) }));
}

// ---- Routing

async function route() {
  const hash = location.hash || '#/';
  const [path, qs] = hash.slice(1).split('?');
  const params = Object.fromEntries(new URLSearchParams(qs || '').entries());
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', path.startsWith('/' + a.dataset.nav) || (path === '/' && a.dataset.nav === 'issues'));
  state.annotate = null;
  showError('');
  try {
    if (!state.session) await loadSession();
    const m = path.match(/^\/issue\/([^/]+)\/([^/]+)\/(\d+)$/);
    if (m) return await viewIssue(m[1] + '/' + m[2], m[3]);
    if (path === '/annotate') return await viewAnnotate(params, 'annotate');
    if (path === '/adjudicate') return await viewAnnotate(params, 'adjudicate');
    if (path === '/agreement') return await viewAgreement(params);
    if (path === '/report') return await viewReport(params);
    return await viewIssues(params);
  } catch (e) {
    showError(e.message);
    if (document.getElementById('main').textContent === 'Loading…') show(el('p', {}, 'Could not load this view.'));
  }
}

window.addEventListener('hashchange', route);
document.addEventListener('keydown', onKey);
document.getElementById('login').addEventListener('submit', login);
route();
