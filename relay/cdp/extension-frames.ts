// What each frame from the extension becomes: a tab's events go through its fence to the clients
// (TabCommands.deliver), tab frames become the roster's changes (tab-roster.ts), the person's
// frames their say. Kept apart from switchboard.ts, which makes and wires the parts these reach.

import type { HelloFrame, PersonFrame, TabSession } from '../../shared/protocol';
import type { Logger } from '../log';
import type { ClientGate } from './client-gate';
import type { DownloadRelay } from './download-relay';
import type { HeldTabs } from './held-tabs';
import { UNFENCED_EVENTS, mayHurry } from './event-fence';
import type { PresenceHandlers } from './extension-presence';
import type { SessionReplay } from './session-replay';
import type { TabCommands } from './tab-commands';
import type { TabLink } from './tab-link';
import type { TabRoster } from './tab-roster';
import type { TargetRegistry } from './target-registry';

/** What the relay hears from the person through the extension, and the gate raw clients pass. */
export interface RelayConsent {
  gate: ClientGate;
  /** The person's own input in a tab (not an agent's: the relay saw none on its way to it). */
  personInput(targetId: string): void;
  /** A side panel (or the options page) opened or closed. */
  panel(open: boolean): void;
  /** The person's say in the side panel: an answer, Stop, a site to block, what to be asked. */
  said(say: PersonFrame['say']): void;
  /** The person dragged a tab into the clawd group of an agent session: it is that session's. */
  handedTo(targetId: string, session: string): void;
  /** The person's browser said hello (after the welcome): what it shows them goes to it again. */
  connected?(): void;
}

/** The parts the frames reach. */
export interface FrameParts {
  registry: TargetRegistry;
  log: Logger;
  /** The switchboard's options, read when a frame comes. */
  options: {
    consent?: RelayConsent;
    /** The person gave a handed-over tab back with the toolbar button. */
    onHandBack?: (targetId: string) => void;
  };
  hello(frame: HelloFrame): TabSession[];
  // Made after the presence these handlers are given to (they reach it): read when a frame comes.
  commands(): TabCommands;
  replay(): SessionReplay;
  link(): TabLink;
  roster(): TabRoster;
  downloads(): DownloadRelay;
  heldTabs: HeldTabs;
}

export function extensionFrames(parts: FrameParts): PresenceHandlers {
  const { registry, log, options } = parts;
  return {
    hello: (_link, frame) => parts.hello(frame),
    event: (_link, frame) => {
      const tab = registry.byTabId(frame.tabId);
      if (!tab) return;
      if (frame.method.startsWith('Page.download') && frame.sessionId === undefined)
        parts.downloads().tabEvent(frame.method, frame.params ?? {});
      const events = parts.commands().events;
      const arrival = events.arrived(tab, frame);
      if (UNFENCED_EVENTS.has(frame.method)) events.deliver(tab, frame, arrival);
      else tab.fence.push(() => events.deliver(tab, frame, arrival), mayHurry(frame.method));
    },
    tabAttached: (link, frame) => {
      const record = parts.roster().register(link, frame.tab);
      parts.heldTabs.registered(record);
      if (frame.tab.session) options.consent?.handedTo(record.targetId, frame.tab.session);
    },
    personInput: (_link, frame) => {
      const tab = registry.byTabId(frame.tabId);
      // Input an agent sent a moment ago shows in the page too: only the rest is the person's.
      if (!tab) return;
      if (!parts.link().includesPersons(tab, frame.inputs)) log.debug(`tab ${tab.tabId}: input taken for an agent's`);
      else options.consent?.personInput(tab.targetId);
    },
    panel: (_link, frame) => options.consent?.panel(frame.open),
    person: (_link, frame) => options.consent?.said(frame.say),
    tabParked: (_link, frame) => {
      const tab = registry.byTabId(frame.tabId);
      if (!tab) return;
      log.info(`tab ${tab.tabId} paused on ${frame.url}`);
      tab.parked = frame.url;
      tab.info = { ...tab.info, url: frame.url };
      parts.replay().parked(tab, frame.url);
      parts.roster().changed(tab);
    },
    handBack: (_link, frame) => {
      const tab = registry.byTabId(frame.tabId);
      if (tab) options.onHandBack?.(tab.targetId);
    },
    tabDetached: (_link, frame) => {
      const tab = registry.byTabId(frame.tabId);
      if (tab) parts.roster().remove(tab, frame.reason);
    },
    tabUpdated: (_link, frame) => {
      const tab = registry.byTabId(frame.tabId);
      if (!tab) return;
      tab.info = { ...tab.info, url: frame.url ?? tab.info.url, title: frame.title ?? tab.info.title };
      parts.roster().changed(tab);
    },
    gone: () => {
      for (const tab of registry.list()) parts.roster().remove(tab, 'extension_gone');
    },
  };
}
