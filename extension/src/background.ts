// The service worker: wiring only. Listeners are registered synchronously at the top level so
// a worker woken by an event (a debugger event, a tab change, the alarm, a click) receives it.
// Requests from the relay are executed from a fixed allow-list; everything else is forwarding.
// The person's side is wired here too: what they do with their tabs (person-tabs.ts: the toolbar
// click, tab groups, popups, closes), the side panel's port, and the watch on an attached tab
// that says when the person's own hands are on it. MV3 wants every listener registered
// synchronously here; each does little and calls the module whose role it is.
// Debugger sessions of a tab are the relay's, shared with the extension's own auto-attach and
// Fetch (tab-sessions.ts: what only the extension asked for is not forwarded);
// those of a worker (source.targetId) are ours alone (worker-sockets.ts) and never forwarded.
// Kept whole (under the 400-line cap): MV3 needs every listener registered at the worker's start,
// here; each listener is a line that hands the event to the module whose role it is.

import { PROTOCOL_VERSION, type HelloFrame, type PersonFrame, type RequestFrame } from '../../shared/protocol';
import { personInputsOf } from '../../shared/protocol-parse';
import { badge, badgeLook } from './badge';
import { AskNotifications } from './ask-notifications';
import { CONSENT_PORT, ConsentPorts } from './consent-port';
import { DebuggingBar } from './debugging-bar';
import { HandOvers } from './hand-overs';
import { Holds } from './holds';
import { HostLookups } from './native-host';
import { PermissionGrants } from './permission-grants';
import { PolicyRules } from './policy-rules';
import { RelayConnection } from './relay-connection';
import { WorkerSockets } from './worker-sockets';
import { WorkerState } from './worker-state';
import { loadSettings, saveSettings, setAgentsMayOpenTabs } from './settings';
import { toFront } from './tab-focus';
import { TabSessions } from './tab-sessions';
import { TabGroups } from './tab-groups';
import { TabAttachments } from './tab-attachments';
import { PersonTabs } from './person-tabs';
import { NewTabs } from './new-tabs';
import { browserInfo } from './browser-info';
import { cancelDownload, downloadedFile } from './tab-downloads';

const WAKE_ALARM = 'clawd-wake';

// What must outlive this worker, read once before any listener acts (worker-state.ts).
const state = new WorkerState();
const connection: RelayConnection = new RelayConnection({
  hello: async (): Promise<HelloFrame> => ({
    type: 'hello',
    protocol: PROTOCOL_VERSION,
    extensionVersion: chrome.runtime.getManifest().version,
    browser: await browserInfo(),
    tabs: await attachments.announce(),
  }),
  steppedAside: (aside) => void state.save('steppedAside', aside),
  welcome: (frame) => {
    for (const { tabId, sessionId } of frame.sessions) void attachments.setSession(tabId, sessionId);
    // A panel open across a reconnect (or a relay restart) still wants the consent state.
    if (panels.open) connection.send({ type: 'panel', open: true });
  },
  tabSession: (frame) => void attachments.setSession(frame.tabId, frame.sessionId),
  request: (frame) => execute(frame),
  status: (status, detail) => {
    paintAll();
    if (status !== 'connected') void newTabs.hold(false);
    // Not reachable (or not configured): the native host, if installed, knows or starts the server.
    // Not when stepped aside for another browser: its answer must not take the relay back.
    if ((status === 'error' && !connection.aside) || status === 'unconfigured') void hosts.ask();
    panels.status(status, status === 'connected' ? 'Connected to clawd.' : `Not connected to clawd: ${detail}`);
  },
  consent: (frame) => panels.state(frame.state),
  asks: (frame) =>
    void notifications.show(frame.asks).catch((error: Error) => console.warn(`clawd: notifications: ${error.message}`)),
  // The server refused or replaced our key: the native host (after `clawd install`) knows the new one.
  keyRefused: () => void hosts.ask(true),
});

/** After `clawd install`: Chrome starts clawd, and the host's answer becomes the settings. */
const hosts = new HostLookups(loadSettings, async (server, changed) => {
  if (changed)
    await saveSettings({ relayPort: server.relayPort, key: server.key }); // storage.onChanged reconnects
  else connection.wake();
});

const groups = new TabGroups();
// Chrome's "started debugging" bar: it comes with the first debugger session and lingers after the last.
const bar = new DebuggingBar();
const attachments = new TabAttachments(
  state,
  connection,
  () => {
    bar.sessions(attachments.attachedTabIds.length);
    void policyRestored.then(() => policyRules.holdTabs(attachments.tabIds));
    void takeBackGrants();
  },
  {
    attached: (tabId) => {
      void watch(tabId);
      void tabSessions.attached(tabId, false);
    },
    // Released (the toolbar, Stop, a drag out) or gone: out of its clawd group, and unwatched.
    forgotten: (tabId) => {
      tabSessions.forget(tabId);
      void groups.leave(tabId);
      void chrome.tabs.sendMessage(tabId, { type: 'clawd-unwatch' }).catch(() => {});
    },
  },
  (tabId) => paintTab(tabId),
  (url) => policyRules.clawdsOwn(url),
);
const panels = new ConsentPorts({
  open: (open) => connection.send({ type: 'panel', open }),
  said: (say) => void personSaid(say),
});
// The questions waiting for the person, as notifications: their buttons say what the side panel's do.
const notifications = new AskNotifications((say) => void personSaid(say));
const handOvers = new HandOvers(state, (tabId) => paintTab(tabId));
const grants = new PermissionGrants(state);
// What the extension holds paused for a moment (a new worker, a worker's script): kept, so a next
// worker lets go of what this one would leave held.
const holds = new Holds(state);
const workerSockets = new WorkerSockets(holds);
// A tab's session is shared with the relay: its auto-attach and its Fetch carry the extension's
// own needs too (the first moments of the site's workers), and its events pass both on their way.
const tabSessions = new TabSessions(
  attachments,
  state,
  workerSockets,
  (event) => connection.send({ type: 'event', ...event }),
  holds,
  bar,
);
const policyRules = new PolicyRules(
  () => connection.relayOrigin,
  (config, sites) => {
    void workerSockets.hold(config, sites).catch(() => {});
    tabSessions.hold(config);
  },
  (tabId) => attachments.isResting(tabId),
);
const newTabs = new NewTabs(policyRules, attachments, groups);

// The relay's last policy holds the attached tabs from the worker's first moment (worker-state.ts
// `policy`): Chrome keeps the rules across a worker restart, and the held tabs are not told again
// until they are in force, so they are never taken off before the relay is reached again.
let relayPolicySeen = false;
const policyRestored = Promise.all([state.loaded, attachments.ready]).then(async ([{ policy }]) => {
  if (policy && !relayPolicySeen) await policyRules.restore(policy, attachments.tabIds).catch(() => {});
});

/** When no tab is attached any more, what the agent granted goes too. */
async function takeBackGrants(): Promise<void> {
  await Promise.all([attachments.ready, grants.ready]);
  if (attachments.tabIds.length === 0) await grants.reset();
}

/** Draws a tab's badge from what the worker knows of it and of the link. */
function paintTab(tabId: number): void {
  const parked = attachments.parkedOn(tabId);
  const handedOver = handOvers.reason(tabId);
  const tab = attachments.has(tabId)
    ? { ...(parked !== undefined ? { parked } : {}), ...(handedOver !== undefined ? { handedOver } : {}) }
    : undefined;
  void badge.show(tabId, badgeLook(tab, { status: connection.status, detail: connection.detail }));
}

/** Every handed-over tab's badge, after the link changed. */
function paintAll(): void {
  for (const tabId of attachments.tabIds) paintTab(tabId);
}

/**
 * Only a tab the person handed over (or an agent opened here) is the relay's to close, focus,
 * reset or mark: whatever else the relay asks of, it never touches the person's other tabs.
 */
function handedOver(tabId: number): void {
  if (!attachments.has(tabId)) throw new Error(`No tab with id: ${tabId} among the tabs handed to clawd`);
}

/** The allow-list of what the relay may ask for. */
async function execute(frame: RequestFrame): Promise<unknown> {
  if ('tabId' in frame && frame.op !== 'cdp') handedOver(frame.tabId);
  switch (frame.op) {
    case 'cdp':
      // A tab in front takes the person's keys: the person's option decides, as for activateTab.
      if (frame.method === 'Page.bringToFront') return toFront(frame.tabId); // on a frame's session too
      return tabSessions.command(frame.tabId, frame.sessionId, frame.method, frame.params);
    case 'createTab':
      return newTabs.open(frame.url, frame.active, frame.session);
    // New tabs held while an agent's watch judges what its tabs' pages do (new-tabs.ts).
    case 'holdNewTabs':
      return newTabs.hold(frame.on).then(() => ({}));
    case 'releaseTab':
      return newTabs.release(frame.tabId).then(() => ({}));
    case 'closeTab':
      await attachments.release(frame.tabId, 'target_closed');
      await chrome.tabs.remove(frame.tabId);
      return {};
    case 'resetTab':
      if (attachments.isResting(frame.tabId)) return {}; // its next session is a fresh one anyway
      await attachments.reset(frame.tabId);
      await tabSessions.attached(frame.tabId, true);
      return {};
    // A resting tab's site's workers are let go with it (the bar goes with the last attachment).
    case 'restTab': {
      const rested = await tabSessions.rest(frame.tabId);
      void policyRules.holdTabs(attachments.tabIds);
      return rested;
    }
    case 'wakeTab': {
      const woken = await tabSessions.wake(frame.tabId);
      await policyRules.holdTabs(attachments.tabIds);
      return woken;
    }
    case 'showHandoff':
      await handOvers.show(frame.tabId, frame.reason);
      return {};
    case 'downloadedFile':
      // Only the newest download of that URL, which the relay saw an attached tab start.
      return downloadedFile(frame.url);
    case 'cancelDownload':
      return cancelDownload(frame);
    case 'grantPermissions':
      await grants.grant(frame.origins, frame.permissions);
      return {};
    case 'resetPermissions':
      await grants.reset();
      return {};
    case 'openView': {
      // The person asked for it in the side panel: their own tab, never held by the agents' rules.
      const tab = await chrome.tabs.create({ url: 'about:blank', active: true });
      if (tab.id === undefined) throw new Error('Chrome created a tab without an id');
      await policyRules.letGo(tab.id);
      await chrome.tabs.update(tab.id, { url: frame.url });
      return {};
    }
    case 'setPolicy': {
      const policy = {
        ...(frame.allow ? { allow: frame.allow } : {}),
        ...(frame.block ? { block: frame.block } : {}),
        ...(frame.own ? { own: frame.own } : {}),
      };
      relayPolicySeen = true;
      await policyRules.set(policy);
      void state.save('policy', policy);
      await policyRules.holdTabs(attachments.tabIds);
      return {};
    }
    case 'activateTab':
      return toFront(frame.tabId);
  }
}

// What the person does with their tabs (person-tabs.ts): each listener hands the event over.
const personTabs = new PersonTabs({
  started: () => started,
  attachments,
  handOvers,
  connection,
  groups,
  policyRules,
  newTabs,
  paintTab,
});
chrome.action.onClicked.addListener((tab) => void personTabs.toggle(tab));
chrome.webNavigation.onCreatedNavigationTarget.addListener((details) => personTabs.popupOpened(details));
chrome.tabs.onCreated.addListener((tab) => personTabs.created(tab));
// Chrome refused a page load by our rules: an attached tab says which rule, instead of an error page.
chrome.webNavigation.onErrorOccurred.addListener((details) => void personTabs.loadRefused(details));
chrome.tabs.onRemoved.addListener((tabId) => void personTabs.removed(tabId));
chrome.tabs.onUpdated.addListener((tabId, change, tab) => void personTabs.updated(tabId, change, tab));

chrome.debugger.onEvent.addListener((source, method, params) => {
  if (source.tabId === undefined) {
    // A worker's session: ours (worker-sockets.ts), nothing the relay asked for.
    if (source.targetId !== undefined) workerSockets.event(source.targetId, method);
    return;
  }
  tabSessions.event({
    tabId: source.tabId,
    ...(source.sessionId ? { sessionId: source.sessionId } : {}),
    method,
    ...(params ? { params: params as Record<string, unknown> } : {}),
  });
});

chrome.debugger.onDetach.addListener((source, reason) => {
  if (source.tabId !== undefined) void personTabs.detached(source.tabId, reason);
  else if (source.targetId !== undefined) workerSockets.detached(source.targetId);
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && ('relayPort' in changes || 'extensionKey' in changes))
    void loadSettings().then((s) => connection.configure(s));
});

// An update or reload of the extension starts the new worker only for events it listens to:
// these make it start at once, reconnect and attach the person's tabs again.
chrome.runtime.onInstalled.addListener(() => {
  connection.wake();
  chrome.contextMenus.create(
    { id: PANEL_MENU, title: 'Open the clawd side panel', contexts: ['action'] },
    () => void chrome.runtime.lastError,
  );
});
chrome.runtime.onStartup.addListener(() => connection.wake());

// chrome.alarms (30 s minimum) wakes a worker that went idle while the relay was down.
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === WAKE_ALARM) connection.wake();
});
void chrome.alarms.get(WAKE_ALARM).then((alarm) => {
  if (!alarm) void chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });
});

// The side panel and the options page: the consent state while one is open, and what the person says there.
chrome.runtime.onConnect.addListener((port) => {
  // Our own pages only (the side panel, the options page): a content script has the same sender id.
  if (
    port.name === CONSENT_PORT &&
    port.sender?.id === chrome.runtime.id &&
    port.sender.url?.startsWith(`chrome-extension://${chrome.runtime.id}/`)
  )
    panels.add(port);
});

/**
 * What the person said in the side panel; Stop takes every tab back here, at once, before the relay
 * hears it, and keeps agents from opening new ones until the person lets them again (an agent that
 * runs on would otherwise be back in a moment).
 */
async function personSaid(say: PersonFrame['say']): Promise<void> {
  await started;
  if ('stop' in say)
    await Promise.all([
      setAgentsMayOpenTabs(false),
      ...attachments.tabIds.map((tabId) => attachments.release(tabId, 'stopped by the person')),
    ]);
  connection.send({ type: 'person', say });
}

/** Puts the watch for the person's hands into the tab (or one frame of it, after a navigation there). */
async function watch(tabId: number, frameId?: number): Promise<void> {
  const target = frameId === undefined ? { tabId, allFrames: true } : { tabId, frameIds: [frameId] };
  await chrome.scripting.executeScript({ target, files: ['person-watch.js'], injectImmediately: true }).catch(() => {
    // A frame that cannot take it (a browser page, another extension's, one removed meanwhile): nothing
    // to watch there. Every web frame takes it — about:blank, srcdoc, data:, blob: and sandboxed
    // ones too (measured on Chromium 156); a blob: frame has no DOMContentLoaded, its commit suffices.
  });
}

// At the commit (input during the load counts) and again once the document is parsed: a script
// put in at the commit can land in the document that is going away. It is put in once per document.
const watchNewDocument = (details: { tabId: number; frameId: number }) => {
  if (attachments.has(details.tabId) && !attachments.isParked(details.tabId))
    void watch(details.tabId, details.frameId);
};
chrome.webNavigation.onCommitted.addListener(watchNewDocument);
chrome.webNavigation.onDOMContentLoaded.addListener(watchNewDocument);
// A frame of a held tab on another site: that site's workers are held from now on (a top frame's
// move comes as the tab's update, person-tabs.ts).
chrome.webNavigation.onCommitted.addListener((details) => {
  if (details.frameId !== 0) void started.then(() => policyRules.frameCommitted(details.tabId, details.url));
});

// The right-click menu of the toolbar button opens the side panel (a click there counts as the person's gesture).
const PANEL_MENU = 'clawd-side-panel';
chrome.contextMenus.onClicked.addListener((info, tab) => {
  if (info.menuItemId === PANEL_MENU && tab?.windowId !== undefined)
    void chrome.sidePanel.open({ windowId: tab.windowId });
});

// The options page asks for the live state; an attached tab's watch says the person touched it.
chrome.runtime.onMessage.addListener((message: unknown, sender, reply) => {
  const type = (message as { type?: string })?.type;
  if (type === 'clawd-person') {
    const tabId = sender.tab?.id;
    // Only what the relay can read goes (it drops the link on a frame it cannot).
    const inputs = personInputsOf((message as { inputs?: unknown }).inputs);
    if (tabId !== undefined && attachments.has(tabId))
      connection.send({ type: 'personInput', tabId, ...(inputs ? { inputs } : {}) });
    return false;
  }
  if (type !== 'status') return false;
  // Once the worker has read its state (a page asking may be what woke it), not the blank it starts with.
  void started.then(() =>
    reply({ status: connection.status, detail: connection.detail, attachedTabs: attachments.tabIds.length }),
  );
  return true;
});

const started = (async () => {
  // The relay's last policy is in force before anything acts on a tab.
  await Promise.all([attachments.ready, handOvers.ready, grants.ready, policyRestored]);
  // Groups left by a browser restart or an extension reload keep only the tabs still attached.
  await groups.reconcile((tabId) => attachments.has(tabId)).catch(() => {});
  // Grants left by a worker or browser that stopped with no tab attached are taken back now.
  await takeBackGrants();
  // A browser that stepped aside for another stays aside across its worker's restarts.
  connection.configure(await loadSettings(), (await state.loaded).steppedAside);
  void hosts.ask(true);
})();
