// The live view page: signs in with the one-time code from the link's #fragment (then drops it
// from the address bar), lists the running profiles' tabs, and shows the chosen one through
// `/view/ws`: frames on the canvas (screen.ts), who controls the tab, and the buttons to take it,
// give it back and navigate. `/view/events` keeps the tab list current without polling, the list of
// what agents did in the tab (the action log) growing as they act, and the questions agents ask
// the person (Allow, Deny) — the same two pieces the extension's side panel shows (ui/).

import type { ConsentAction, ConsentQuestion } from '../../shared/consent-state';
import type { ViewHolder, ViewMessage, ViewUpdate } from '../../shared/view-protocol';
import { ActionList, QuestionList } from '../../ui/agent-activity';
import { Screen } from './screen';

interface ListedTab {
  targetId: string;
  title: string;
  url: string;
}
interface ListedProfile {
  profile: string;
  driver: string;
  running: boolean;
  default: boolean;
  tabs: ListedTab[];
}

/** One line of the action log as the server sends it: with its profile. */
type ActionEntry = ConsentAction & { profile: string };

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  app: $('app'),
  signin: $('signin'),
  signinWhy: $('signin-why'),
  tab: $<HTMLSelectElement>('tab'),
  control: $('control'),
  who: $('who'),
  reason: $('reason'),
  take: $<HTMLButtonElement>('take'),
  done: $<HTMLButtonElement>('done'),
  nav: $<HTMLFormElement>('nav'),
  address: $<HTMLInputElement>('address'),
  status: $('status'),
  notice: $('notice'),
  noActions: $('no-actions'),
};
const actions = new ActionList($<HTMLOListElement>('action-list'), 20);
const questions = new QuestionList($('questions'), (id, allow) => void answer(id, allow));
let noticeTimer: number | undefined;
/** This view only watches (a hand-over's link, which the agent was given): no control is offered. */
let watchOnly = false;

let socket: WebSocket | undefined;
const send = (message: ViewMessage) => {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
};
const screen = new Screen($<HTMLCanvasElement>('screen'), $<HTMLTextAreaElement>('keys'), send, () =>
  (ui.done.hidden ? ui.take : ui.done).focus(),
);

/** profile and target from the fragment (the code is removed from it once used). */
function fragment(): URLSearchParams {
  return new URLSearchParams(location.hash.slice(1));
}

async function signIn(): Promise<boolean> {
  const params = fragment();
  const code = params.get('code');
  if (code) {
    params.delete('code');
    history.replaceState(null, '', `${location.pathname}${params.size ? `#${params}` : ''}`);
    const res = await fetch('/view/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    if (!res.ok) {
      ui.signinWhy.textContent =
        ((await res.json()) as { error?: { message?: string } }).error?.message ?? 'This link did not work.';
      return false;
    }
  }
  return true;
}

async function listTabs(): Promise<ListedProfile[] | undefined> {
  const res = await fetch('/view/api/tabs');
  if (res.status === 401) return undefined;
  return ((await res.json()) as { profiles: ListedProfile[] }).profiles;
}

function fillPicker(profiles: ListedProfile[]): void {
  const current =
    ui.tab.value ||
    (() => {
      const p = fragment();
      return p.get('target') ? `${p.get('profile') ?? ''}|${p.get('target')}` : '';
    })();
  ui.tab.replaceChildren();
  for (const p of profiles.filter((x) => x.running && x.tabs.length > 0)) {
    const group = document.createElement('optgroup');
    group.label = `${p.profile} (${p.driver})`;
    for (const t of p.tabs) group.append(new Option(t.title || t.url || t.targetId, `${p.profile}|${t.targetId}`));
    ui.tab.append(group);
  }
  if (ui.tab.options.length === 0) {
    ui.tab.append(new Option('No tabs: start a profile or attach a tab', ''));
    ui.status.textContent = 'No tab to show yet.';
    ui.status.hidden = false;
    return;
  }
  const options = [...ui.tab.options];
  const target = current.split('|')[1];
  const wanted =
    options.find((o) => o.value === current) ??
    (target ? options.find((o) => o.value.endsWith(`|${target}`)) : undefined);
  ui.tab.value = (wanted ?? options[0]!).value;
}

function showHolder(holder: ViewHolder): void {
  ui.control.dataset.kind = holder?.kind ?? 'none';
  ui.take.hidden = watchOnly || holder?.kind === 'person';
  ui.done.hidden = watchOnly || holder?.kind !== 'person';
  ui.nav.hidden = watchOnly;
  if (watchOnly) {
    ui.who.textContent = `You are watching: this link only watches. To act, open your own live view: "Open the live view" in clawd's side panel in Chrome, or run \`clawd view\` in your terminal.`;
    ui.reason.textContent = holder?.kind === 'person' && !holder.takenOver ? holder.reason : '';
    return;
  }
  if (!holder) {
    ui.who.textContent = 'Nobody is driving this tab. Acting in the picture takes it.';
    ui.reason.textContent = '';
  } else if (holder.kind === 'agent') {
    ui.who.textContent = `The agent session "${holder.session}" is driving this tab: you are watching.`;
    ui.reason.textContent = '';
  } else if (holder.takenOver) {
    ui.who.textContent = 'You took over this tab: agents wait until you press Done.';
    ui.reason.textContent = '';
  } else {
    ui.who.textContent = 'Your agent handed you this tab:';
    ui.reason.textContent = holder.reason;
  }
}

function onUpdate(update: ViewUpdate): void {
  if (update.t === 'grant') {
    watchOnly = !update.acts;
    ui.app.dataset.watchOnly = String(watchOnly);
  } else if (update.t === 'control') showHolder(update.holder);
  else if (update.t === 'page') {
    if (document.activeElement !== ui.address) ui.address.value = update.url;
    document.title = `${update.title || update.url} — clawd live view`;
  } else if (update.t === 'status') {
    ui.status.hidden = update.state === 'live';
    ui.status.textContent = update.message;
  } else {
    // A refusal (watch-only, a bad address) is a notice that fades; the picture stays usable.
    ui.notice.textContent = update.message;
    clearTimeout(noticeTimer);
    noticeTimer = window.setTimeout(() => (ui.notice.textContent = ''), 5_000);
  }
}

function showAction(entry: ActionEntry): void {
  actions.add(entry);
  ui.noActions.hidden = true;
}

/** The tab's recent actions, newest last. */
async function loadActions(profile: string, targetId: string): Promise<void> {
  const res = await fetch(`/view/api/actions?${new URLSearchParams({ profile, targetId })}`);
  const entries = res.ok ? ((await res.json()) as { entries: ActionEntry[] }).entries : [];
  actions.show(entries);
  ui.noActions.hidden = entries.length > 0;
}

/** The questions agents ask the person on the profile watched: above the picture, with Allow and Deny. */
async function loadQuestions(): Promise<void> {
  const [profile] = ui.tab.value.split('|');
  if (!profile) return;
  const res = await fetch(`/view/api/questions?${new URLSearchParams({ profile })}`);
  if (!res.ok) return;
  const { questions: waiting, mayAnswer } = (await res.json()) as { questions: ConsentQuestion[]; mayAnswer: boolean };
  // A view opened from a hand-over's link (an agent's to pass on) shows the questions but cannot answer them.
  questions.show(
    waiting,
    mayAnswer
      ? undefined
      : 'Answer in the clawd side panel, or in the live view opened from the link `clawd view` prints.',
  );
}

async function answer(id: string, allow: boolean): Promise<void> {
  await fetch('/view/api/answer', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ id, allow }),
  });
  void loadQuestions();
}

function connect(): void {
  socket?.close();
  const [profile, targetId] = ui.tab.value.split('|');
  if (!targetId) return;
  void loadActions(profile!, targetId);
  void loadQuestions();
  history.replaceState(
    null,
    '',
    `${location.pathname}#${new URLSearchParams({ profile: profile!, target: targetId })}`,
  );
  ui.status.hidden = false;
  ui.status.textContent = 'Connecting…';
  const ws = new WebSocket(`ws://${location.host}/view/ws?${new URLSearchParams({ profile: profile!, targetId })}`);
  ws.binaryType = 'arraybuffer';
  socket = ws;
  ws.onopen = () => send({ t: 'size', ...screen.wantedSize() });
  ws.onmessage = (event) => {
    if (typeof event.data === 'string') onUpdate(JSON.parse(event.data) as ViewUpdate);
    else screen.draw(event.data as ArrayBuffer);
  };
  ws.onclose = (event) => {
    if (socket !== ws) return;
    ui.status.hidden = false;
    ui.status.textContent = event.reason ? `Disconnected: ${event.reason}.` : 'Disconnected.';
  };
}

function wire(): void {
  ui.tab.addEventListener('change', connect);
  ui.take.addEventListener('click', () => send({ t: 'take' }));
  ui.done.addEventListener('click', () => send({ t: 'done' }));
  $('back').addEventListener('click', () => send({ t: 'nav', action: 'back' }));
  $('forward').addEventListener('click', () => send({ t: 'nav', action: 'forward' }));
  $('reload').addEventListener('click', () => send({ t: 'nav', action: 'reload' }));
  ui.nav.addEventListener('submit', (e) => {
    e.preventDefault();
    let url = ui.address.value.trim();
    if (url && !/^[a-z]+:/i.test(url)) url = `https://${url}`;
    send({ t: 'nav', action: 'go', url });
  });
  let resizeTimer: number | undefined;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(() => send({ t: 'size', ...screen.wantedSize() }), 250);
  });
  // Tabs come and go: refresh the list on what /events says, a moment after it says it.
  const events = new EventSource('/view/events');
  let refresh: number | undefined;
  const later = () => {
    clearTimeout(refresh);
    refresh = window.setTimeout(async () => {
      const profiles = await listTabs();
      if (!profiles) return;
      const before = ui.tab.value;
      fillPicker(profiles);
      if (ui.tab.value !== before) connect();
    }, 300);
  };
  for (const type of ['browser', 'tab']) events.addEventListener(type, later);
  events.addEventListener('question', () => void loadQuestions());
  events.addEventListener('action', (event) => {
    const entry = JSON.parse((event as MessageEvent<string>).data) as ActionEntry;
    const [profile, targetId] = ui.tab.value.split('|');
    if (entry.profile === profile && entry.targetId === targetId) showAction(entry);
  });
}

async function start(): Promise<void> {
  const signedIn = await signIn();
  const profiles = signedIn ? await listTabs() : undefined;
  if (!profiles) {
    ui.signin.hidden = false;
    return;
  }
  ui.app.hidden = false;
  fillPicker(profiles);
  wire();
  connect();
}

void start();
