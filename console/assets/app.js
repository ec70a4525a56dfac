// The hookwire console's page. Every text that comes from a run (a model,
// a tool, arguments, names) is put in the page with `textContent`, never
// parsed as HTML.
'use strict';

const csrf = document.querySelector('meta[name="hookwire-csrf"]').content;
const runs = new Map();

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function compact(value) {
  return value === undefined ? '' : JSON.stringify(value);
}

function notice(text) {
  document.getElementById('notice').textContent = text;
}

function resultText(result) {
  if (!result) return '';
  const blocks = Array.isArray(result.content) ? result.content : [];
  const text = blocks.map((b) => (b && b.type === 'text' ? b.text : compact(b))).join('\n');
  return (result.isError ? 'error: ' : '') + text;
}

function noteText(note) {
  let what = note.approved ? 'approved' : 'denied';
  if (note.approved && note.edited) what = 'approved with edited arguments';
  else if (!note.approved && note.by === 'deferred') what = 'waiting';
  else if (!note.approved && note.edited) what = 'edit refused';
  const by = note.who ? note.who + ' (' + note.by + ')' : note.by;
  return what + ' at ' + note.gate + ' by ' + by;
}

function ms(us) {
  return typeof us === 'number' ? (us / 1000).toFixed(1) + ' ms' : '';
}

// What one event of the run's log shows: [kind, text], or null for none.
function describe(name, d) {
  const who = d.path && d.path.length ? d.path.map((p) => p.agent).concat([d.agent]).join('/') + ': ' : '';
  switch (name) {
    case 'trace':
      switch (d.type) {
        case 'prompt': return ['prompt', who + d.text];
        case 'model': {
          let text = who + 'step ' + d.step + ' (' + ms(d.elapsed_us) + ')';
          if (d.text) text += ': ' + d.text;
          if (d.tool_calls && d.tool_calls.length) text += ' calls [' + d.tool_calls.join(', ') + ']';
          return ['model', text];
        }
        case 'tool_call': {
          let text = who + d.tool + ' ' + compact(d.arguments);
          if (d.received) text += ', received ' + compact(d.received);
          text += ' -> ' + d.decision;
          if (d.hook) text += ' by ' + d.hook;
          for (const note of d.approvals || []) text += ' (' + noteText(note) + ')';
          if (d.hooks && d.hooks.length) text += ' [hooks: ' + d.hooks.join(', ') + ']';
          text += ' (' + ms(d.elapsed_us) + '): ' + resultText(d.result);
          return ['tool call', text];
        }
        case 'progress': return ['progress', who + d.tool + ': ' + d.message];
        case 'finished': return ['finished', who + d.status + (d.text ? ': ' + d.text : '')];
        case 'warning': return ['warning', who + d.text];
        case 'model_retry': return ['retry', who + 'step ' + d.step + ' attempt ' + d.attempt + ': ' + d.reason];
        default: return [d.type || 'trace', who + compact(d)];
      }
    case 'usage': return ['usage', who + 'step ' + d.step + ' ' + compact(d.usage) + ' total ' + compact(d.total)];
    case 'tool_started': return ['tool started', who + d.tool + ' ' + compact(d.arguments)];
    case 'approval_wait': return ['asks', who + d.tool + ' at ' + d.gate + ': ' + d.reason];
    case 'approval': return ['waiting', d.path + ' ' + compact(d.arguments)];
    case 'decided': return ['decided', d.decision + ' by ' + d.who];
    case 'withdrawn': return ['withdrawn', d.id];
    case 'done': return ['done', d.error ? 'failed: ' + d.error : d.output.status.status + ': ' + d.output.text];
    default: return null;
  }
}

function setStatus(run, status) {
  run.status.textContent = status;
  run.status.className = 'status ' + status;
  run.node.dataset.status = status;
}

function message(card, text) {
  card.querySelector('.message').textContent = text;
}

async function decide(card, id, body) {
  const who = document.getElementById('who').value.trim();
  if (!who) {
    message(card, 'Enter your name first: the trace records who decided.');
    return;
  }
  body.who = who;
  const response = await fetch('api/approvals/' + encodeURIComponent(id), {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
    body: JSON.stringify(body),
  });
  if (response.ok) {
    message(card, 'Sent (' + body.decision + ') as ' + who + '.');
    for (const b of card.querySelectorAll('button')) b.disabled = true;
  } else {
    message(card, await response.text());
  }
}

function field(list, name, value, cls) {
  list.append(el('dt', null, name));
  const dd = el('dd');
  dd.append(el('pre', cls, value));
  list.append(dd);
}

function approvalCard(d) {
  const card = el('section', 'approval');
  card.dataset.id = d.id;
  card.dataset.tool = d.tool;
  card.append(el('div', 'path', d.path));
  const list = el('dl');
  field(list, 'tool', d.tool, 'tool');
  field(list, 'reason', d.reason, 'reason');
  field(list, 'arguments', compact(d.arguments), 'arguments');
  if (d.metadata !== null && d.metadata !== undefined) field(list, 'metadata', compact(d.metadata), 'metadata');
  field(list, 'decision id', d.id, 'id');
  card.append(list);
  const reason = el('input', 'deny-reason');
  reason.placeholder = 'why (for a denial, optional)';
  card.append(reason);
  const buttons = el('div', 'buttons');
  const approve = el('button', 'approve', 'Approve');
  approve.addEventListener('click', () => decide(card, d.id, { decision: 'approve' }));
  const deny = el('button', 'deny', 'Deny');
  deny.addEventListener('click', () => decide(card, d.id, { decision: 'deny', reason: reason.value }));
  const edit = el('button', 'edit', 'Approve with edits');
  const editor = el('textarea', 'edited');
  editor.hidden = true;
  editor.value = JSON.stringify(d.arguments, null, 2);
  const send = el('button', 'send-edit', 'Send edited approval');
  send.hidden = true;
  edit.addEventListener('click', () => { editor.hidden = false; send.hidden = false; editor.focus(); });
  send.addEventListener('click', () => {
    let args;
    try { args = JSON.parse(editor.value); } catch (e) { message(card, 'The edited arguments are not JSON: ' + e.message); return; }
    decide(card, d.id, { decision: 'approve_with', arguments: args });
  });
  buttons.append(approve, deny, edit, send);
  card.append(buttons, editor, el('p', 'message'));
  return card;
}

function onEvent(run, name, event) {
  let d;
  try { d = JSON.parse(event.data); } catch (e) { return; }
  if (name === 'approval') {
    run.approvals.append(approvalCard(d));
  } else if (name === 'decided' || name === 'withdrawn') {
    for (const card of run.approvals.querySelectorAll('.approval')) {
      if (card.dataset.id === d.id) card.remove();
    }
  } else if (name === 'done') {
    run.ended = true;
    setStatus(run, d.error ? 'failed' : d.output.status.status);
    run.source.close();
  }
  const shown = describe(name, d);
  if (!shown) return;
  const row = el('li', 'event ' + name.replace(/[^a-z_]/g, ''));
  row.append(el('span', 'kind', shown[0]), el('span', 'body', shown[1]));
  run.events.append(row);
}

const EVENTS = ['trace', 'usage', 'tool_started', 'approval_wait', 'progress', 'retry', 'done', 'approval', 'decided', 'withdrawn'];

function addRun(summary) {
  const main = document.getElementById('runs');
  const empty = main.querySelector('.empty');
  if (empty) empty.remove();
  const node = el('article', 'run');
  node.dataset.run = summary.id;
  const title = el('h2');
  const status = el('span', 'status');
  title.append(el('span', 'name', summary.name), el('span', 'agent', summary.agent), status);
  const approvals = el('div', 'approvals');
  const events = el('ol', 'events');
  node.append(title, approvals, events);
  main.append(node);
  const run = { node, status, approvals, events, ended: false };
  setStatus(run, summary.status);
  run.source = new EventSource('api/runs/' + encodeURIComponent(summary.id) + '/events');
  for (const name of EVENTS) run.source.addEventListener(name, (e) => onEvent(run, name, e));
  runs.set(summary.id, run);
}

async function refresh() {
  try {
    const response = await fetch('api/runs', { credentials: 'same-origin' });
    if (!response.ok) { notice('The console answered ' + response.status + ': ' + (await response.text())); return; }
    for (const summary of await response.json()) {
      const run = runs.get(summary.id);
      if (!run) addRun(summary);
      else if (!run.ended) setStatus(run, summary.status);
    }
    notice('');
  } catch (e) {
    notice('The console is not reachable (' + e.message + '): what is shown is what it sent last.');
  }
}

refresh();
setInterval(refresh, 1000);
