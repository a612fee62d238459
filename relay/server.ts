// Wiring only: one process, two listeners (the relay and the control API), one home and one
// token, the profiles' browsers, and a clean shutdown that closes every socket and timer and
// stops the browsers this process launched.

import { DEFAULT_CONTROL_PORT, DEFAULT_RELAY_PORT, EXTENSION_ORIGIN, MiB } from '../shared/defaults';
import { startRelayServer, type RelayServer } from './cdp/relay-server';
import { startControlServer, type ControlServer } from './control/control-server';
import { AgentService } from './agent/agent-service';
import { tabKey } from './agent/tabs/tab-key';
import { ActionLog } from './agent/action-log';
import { EventBus, type ActionEntry } from './events/event-bus';
import { loadConfig, updateConfig, type ClawdConfig } from './home/config-store';
import { ServerToken } from './http/server-token';
import { ServerKeys } from './http/server-keys';
import { loadKeys, rotateExtensionKey } from './home/home-keys';
import { removeServeState, writeServeState } from './home/serve-state';
import type { Logger } from './log';
import { DriverKinds, type DriverKind } from './profiles/driver-kinds';
import { BUILT_IN_KINDS } from './profiles/kinds';
import { seconds, within } from './time-limit';
import { ProfileService } from './profiles/profile-service';
import { PersonConsent } from './person-consent';
import { RecipeStore } from './agent/export/recipe-store';
import { Pairing } from './pairing/pairing';
import { VERSION } from './version';

export interface ServeOptions {
  home: string;
  relayPort?: number;
  controlPort?: number;
  log: Logger;
  /** How long a take-over nobody watches stays the person's (default 30 s; tests shorten it). */
  takeoverGraceMs?: number;
  /**
   * The bench's "before" side: `agent` snapshots walk without the rules of what a person cannot
   * see (CLAWD_BENCH_SEE_ALL=1), so one run measures what the rules cost. Never for agents.
   */
  benchSeeAll?: boolean;
  /**
   * The kinds of profile it runs, in create-profile's order of choice (default: clawd's own,
   * kinds.ts). A longer list is how a new kind joins: its module and an entry here.
   */
  kinds?: readonly DriverKind[];
}

export interface RunningServer {
  readonly home: string;
  /** The token in force now (`clawd token --rotate` changes it while the server runs). */
  readonly token: string;
  readonly relay: RelayServer;
  readonly control: ControlServer;
  readonly profiles: ProfileService;
  /** One-time links that pair the extension with this server. */
  readonly pairing: Pairing;
  /** The person's say: the questions they are asked and their hands on a tab. */
  readonly consent: PersonConsent;
  close(): Promise<void>;
}

/** Hooks the relay is started with that reach parts made after it: the profiles and the agent. */
interface LateHooks {
  /** The extension profiles, the person's tabs as each sees them (none until the profiles exist). */
  extensionProfiles(): string[];
  /** The person clicked a handed-over tab's toolbar: it is theirs again. */
  handBack(targetId: string): void;
}

/** What the process makes before the relay, and every later part is given. */
interface EarlyParts {
  events: EventBus;
  actions: ActionLog;
  consent: PersonConsent;
  token: ServerToken;
  keys: ServerKeys;
  pairing: Pairing;
  extensionOrigins: string[];
  late: LateHooks;
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const kinds = new DriverKinds(options.kinds ?? BUILT_IN_KINDS);
  const config = await loadConfig(options.home, { relayPort: options.relayPort, kinds });
  const events = new EventBus();
  const actions = new ActionLog(options.home, events, options.log);
  // The person's say over their own browser: shared by the agent layer's gate, the relay (raw
  // clients, the extension's side panel) and the live view.
  const consent = new PersonConsent(events, actions, options.log);
  // The relay starts before the profile service and agent exist; its hooks reach them late.
  const late: LateHooks = { extensionProfiles: () => [], handBack: () => {} };
  // Our extension: the pinned development id, and the ids config lists (a store install).
  const extensionOrigins = [
    EXTENSION_ORIGIN,
    ...(config.relay?.extensionIds ?? []).map((id) => `chrome-extension://${id}`),
  ];
  // Pairing links carry the relay's port, known once it listens.
  let relayPort = 0;
  // One owner of the token: a rotation is saved to config.json before it is in force.
  const token = new ServerToken(config.token, async (next) => {
    await updateConfig(options.home, (current) => ({ ...current, token: next }), kinds);
  });
  // The keys that are not the agent's: the person's terminal's and the paired extension's (keys.json).
  const keys = new ServerKeys(await loadKeys(options.home), () => rotateExtensionKey(options.home));
  const pairing = new Pairing(keys, extensionOrigins, () => relayPort);
  const parts: EarlyParts = { events, actions, consent, token, keys, pairing, extensionOrigins, late };
  const relay = await startRelay(options, config, parts);
  relayPort = relay.port;
  const profiles = new ProfileService(options.home, config, relay, options.log, kinds);
  late.extensionProfiles = () => profiles.personsProfiles();
  profiles.rawGate = (profile) => consent.rawGate(profile);
  // The control API's port is known once it listens: until then, the relay's own and the profiles'.
  let controlPort: number | undefined;
  const syncRelayPolicy = followPolicies(parts, relay, profiles, () => controlPort);
  profiles.onStartedOnUse = (profile) => events.emit({ type: 'browser', profile, state: 'started' });
  const agent = startAgent(options, parts, relay, profiles);
  profiles.onBrowserUp = (endpoint) => agent.prepare(endpoint);
  const control = await startControl(options, parts, relay, profiles, agent);
  // The person's side panel opens their own live view of a tab an agent handed them.
  consent.viewLink = (tab) => control.personsViewLink(tab);
  consent.viewsAnswering = (profile) => control.views.answering(profile);
  // Now clawd's own addresses include the control API's (and the live view's).
  controlPort = control.port;
  await syncRelayPolicy();
  await writeServeState(options.home, {
    pid: process.pid,
    version: VERSION,
    controlUrl: control.url,
    relayUrl: relay.url,
  });
  return {
    home: options.home,
    get token() {
      return token.value;
    },
    relay,
    control,
    profiles,
    pairing,
    consent,
    close: serverCloser(options, parts, { relay, profiles, agent, control }),
  };
}

function startRelay(options: ServeOptions, config: ClawdConfig, parts: EarlyParts): Promise<RelayServer> {
  const { events, actions, late } = parts;
  /** A raw CDP client's doing on the person's tabs, in the action log of the (first) extension profile. */
  const recordRelay = (entry: Omit<ActionEntry, 'time' | 'profile'>) => {
    const [profile] = late.extensionProfiles();
    if (profile) actions.record({ profile, ...entry });
  };
  return startRelayServer({
    port: options.relayPort ?? DEFAULT_RELAY_PORT,
    extensionOrigins: parts.extensionOrigins,
    pairing: parts.pairing,
    token: parts.token,
    keys: parts.keys,
    log: options.log,
    ...(config.relay?.clientMaxBufferedMb !== undefined
      ? { maxClientBufferedBytes: config.relay.clientMaxBufferedMb * MiB }
      : {}),
    ...(config.extension?.idleDetachMs !== undefined ? { idleDetachMs: config.extension.idleDetachMs } : {}),
    // The person's tabs, as each extension profile sees them.
    onTabChange: ({ targetId, url, state, reason }) => {
      for (const profile of late.extensionProfiles())
        events.emit({ type: 'tab', profile, targetId, state, url, ...(reason ? { reason } : {}) });
    },
    onHandBack: (targetId) => late.handBack(targetId),
    onClientNavigate: (targetId, url) =>
      recordRelay({ kind: 'cdp.navigate', targetId, url, outcome: 'ok', durationMs: 0 }),
    onPolicyRefusal: (url, reason) =>
      recordRelay({ kind: 'cdp.blocked', url, outcome: 'origin_blocked', durationMs: 0, detail: reason }),
    consent: parts.consent.relay,
  });
}

/**
 * The person's tabs follow the extension profile's origin policy (the first one, when there are
 * several), set now and on every change; a managed or remote browser's blocked loads are logged.
 * Returns the sync, for once clawd's own addresses grow by the control API's port.
 */
function followPolicies(
  parts: EarlyParts,
  relay: RelayServer,
  profiles: ProfileService,
  controlPort: () => number | undefined,
): () => Promise<void> {
  profiles.policies.serverPorts = () => {
    const port = controlPort();
    return [relay.port, ...(port !== undefined ? [port] : [])];
  };
  const syncRelayPolicy = () => {
    const [profile] = parts.late.extensionProfiles();
    const { allow, block } = profile ? profiles.policies.policyInForce(profile) : {};
    return relay.switchboard.policy.set({
      ...(allow ? { allow } : {}),
      ...(block ? { block } : {}),
      own: profiles.policies.ownOrigins(),
    });
  };
  void syncRelayPolicy();
  profiles.policies.onPolicyChange(syncRelayPolicy);
  // What the relay's own interception kept a managed or remote browser from loading.
  profiles.policies.onGuardBlock = (profile, block) =>
    parts.actions.record({
      profile,
      kind: 'blocked',
      url: block.url,
      outcome: 'origin_blocked',
      durationMs: 0,
      detail: `${block.reason} (${block.resourceType})`,
    });
  return syncRelayPolicy;
}

/** The agent layer, joined to the person's say and to the toolbar of the person's handed-over tabs. */
function startAgent(
  options: ServeOptions,
  parts: EarlyParts,
  relay: RelayServer,
  profiles: ProfileService,
): AgentService {
  const { events, consent, late } = parts;
  const agent = new AgentService(profiles, options.home, options.log, events, consent, {
    seeAll: options.benchSeeAll === true,
  });
  consent.connect({ profiles, agent, relay, recipes: new RecipeStore(options.home) });
  // A person's tab rests only while no agent call runs, and its refs outlive the rest.
  relay.switchboard.rest.hooks = {
    busy: () => late.extensionProfiles().some((profile) => agent.callsRunning(profile)),
    beforeRest: (targetId) => agent.keepRefs(late.extensionProfiles().map((profile) => tabKey(profile, targetId))),
  };
  // A hand-over of a person's own tab shows on its toolbar badge; a click there gives it back.
  late.handBack = (targetId) => {
    for (const profile of late.extensionProfiles()) agent.view.personDone(tabKey(profile, targetId));
  };
  events.subscribe((event) => {
    if (event.type !== 'handoff' || !late.extensionProfiles().includes(event.profile)) return;
    relay.switchboard.showHandoff(event.targetId, event.state === 'started' ? event.reason : undefined);
  });
  return agent;
}

/** The control API; the relay is closed again when it cannot start. */
async function startControl(
  options: ServeOptions,
  parts: EarlyParts,
  relay: RelayServer,
  profiles: ProfileService,
  agent: AgentService,
): Promise<ControlServer> {
  const { consent } = parts;
  try {
    return await startControlServer({
      port: options.controlPort ?? DEFAULT_CONTROL_PORT,
      token: parts.token,
      keys: parts.keys,
      person: {
        confirmLoosening: (changes, timeoutMs) => consent.confirmLoosening(changes, timeoutMs),
        askWait: (id, asker, timeoutMs) => consent.questions.wait(id, asker, timeoutMs),
        askCode: (input, timeoutMs, signal) => consent.questions.askCode(input, timeoutMs, signal),
        codesGiven: (profile) => consent.questions.codesGiven(profile),
      },
      home: options.home,
      service: profiles,
      agent,
      events: parts.events,
      actions: parts.actions,
      log: options.log,
      extensionOrigins: parts.extensionOrigins,
      pairing: parts.pairing,
      ...(options.takeoverGraceMs !== undefined ? { takeoverGraceMs: options.takeoverGraceMs } : {}),
    });
  } catch (error) {
    await relay.close();
    throw error;
  }
}

/** One idempotent close: the parts in order, the last the serve state that says the server runs. */
function serverCloser(
  options: ServeOptions,
  parts: EarlyParts,
  started: { relay: RelayServer; profiles: ProfileService; agent: AgentService; control: ControlServer },
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  // Each part within its bound, then the next whatever it did: a part that hangs (a client's
  // socket that never ends, a browser that does not answer) must not keep clawd's own browsers
  // running after the server is gone. The profiles' bound covers a managed browser's whole
  // escalation (Browser.close, SIGTERM, SIGKILL: 2.5 s each).
  const part = async (name: string, closed: Promise<void>, ms: number) => {
    const outcome = await within(
      closed.then(
        () => undefined,
        (error: Error) => `failed: ${error.message}`,
      ),
      ms,
      () => new Error(`did not close within ${seconds(ms)}`),
    ).catch((error: Error) => error.message);
    if (outcome !== undefined) options.log.warn(`shutdown: ${name} ${outcome}`);
  };
  return () => {
    closing ??= (async () => {
      // Calls waiting for the person hear that nobody answered, so no request outlives the server.
      parts.consent.close();
      await part('the control API', started.control.close(), CLOSE_PART_MS);
      parts.events.close();
      await part('the agent API', started.agent.close(), CLOSE_PART_MS);
      await part("the profiles' browsers", started.profiles.close(), CLOSE_PROFILES_MS);
      await part('the relay', started.relay.close(), CLOSE_PART_MS);
      parts.pairing.close();
      await removeServeState(options.home);
    })();
    return closing;
  };
}

/** How long one part of the server may take to close before the next goes on. */
const CLOSE_PART_MS = 5_000;
/** The profiles close their browsers side by side; a managed one may take its whole escalation. */
const CLOSE_PROFILES_MS = 15_000;
