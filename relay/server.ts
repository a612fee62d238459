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
import { loadConfig, updateConfig } from './home/config-store';
import { ServerToken } from './http/server-token';
import { ServerKeys } from './http/server-keys';
import { loadKeys, rotateExtensionKey } from './home/home-keys';
import { removeServeState, writeServeState } from './home/serve-state';
import type { Logger } from './log';
import { ProfileService } from './profiles/profile-service';
import { PersonConsent } from './person-consent';
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

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const config = await loadConfig(options.home, { relayPort: options.relayPort });
  const events = new EventBus();
  const actions = new ActionLog(options.home, events, options.log);
  // The person's say over their own browser: shared by the agent layer's gate, the relay (raw
  // clients, the extension's side panel) and the live view.
  const consent = new PersonConsent(events, actions, options.log);
  // The relay starts before the profile service and agent exist; its hooks reach them late.
  let extensionProfiles = (): string[] => [];
  /** A raw CDP client's doing on the person's tabs, in the action log of the (first) extension profile. */
  const recordRelay = (entry: Omit<ActionEntry, 'time' | 'profile'>) => {
    const [profile] = extensionProfiles();
    if (profile) actions.record({ profile, ...entry });
  };
  let handBack = (_targetId: string): void => {};
  // Our extension: the pinned development id, and the ids config lists (a store install).
  const extensionOrigins = [
    EXTENSION_ORIGIN,
    ...(config.relay?.extensionIds ?? []).map((id) => `chrome-extension://${id}`),
  ];
  // Pairing links carry the relay's port, known once it listens.
  let relayPort = 0;
  // One owner of the token: a rotation is saved to config.json before it is in force.
  const token = new ServerToken(config.token, async (next) => {
    await updateConfig(options.home, (current) => ({ ...current, token: next }));
  });
  // The keys that are not the agent's: the person's terminal's and the paired extension's (keys.json).
  const keys = new ServerKeys(await loadKeys(options.home), () => rotateExtensionKey(options.home));
  const pairing = new Pairing(keys, extensionOrigins, () => relayPort);
  const relay = await startRelayServer({
    port: options.relayPort ?? DEFAULT_RELAY_PORT,
    extensionOrigins,
    pairing,
    token,
    keys,
    log: options.log,
    ...(config.relay?.clientMaxBufferedMb !== undefined
      ? { maxClientBufferedBytes: config.relay.clientMaxBufferedMb * MiB }
      : {}),
    // The person's tabs, as each extension profile sees them.
    onTabChange: ({ targetId, url, state, reason }) => {
      for (const profile of extensionProfiles())
        events.emit({ type: 'tab', profile, targetId, state, url, ...(reason ? { reason } : {}) });
    },
    onHandBack: (targetId) => handBack(targetId),
    onClientNavigate: (targetId, url) =>
      recordRelay({ kind: 'cdp.navigate', targetId, url, outcome: 'ok', durationMs: 0 }),
    onPolicyRefusal: (url, reason) =>
      recordRelay({ kind: 'cdp.blocked', url, outcome: 'origin_blocked', durationMs: 0, detail: reason }),
    consent: consent.relay,
  });
  relayPort = relay.port;
  const profiles = new ProfileService(options.home, config, relay, options.log);
  extensionProfiles = () => profiles.personsProfiles();
  profiles.rawGate = (profile) => consent.rawGate(profile);
  // The person's tabs follow the extension profile's origin policy (the first one, when there are several).
  // The control API's port is known once it listens: until then, the relay's own and the profiles'.
  let controlPort: number | undefined;
  profiles.policies.serverPorts = () => [relay.port, ...(controlPort !== undefined ? [controlPort] : [])];
  const syncRelayPolicy = () => {
    const [profile] = extensionProfiles();
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
    actions.record({
      profile,
      kind: 'blocked',
      url: block.url,
      outcome: 'origin_blocked',
      durationMs: 0,
      detail: `${block.reason} (${block.resourceType})`,
    });
  profiles.onStartedOnUse = (profile) => events.emit({ type: 'browser', profile, state: 'started' });
  const agent = new AgentService(profiles, options.home, options.log, events, consent, {
    seeAll: options.benchSeeAll === true,
  });
  consent.connect({ profiles, agent, relay });
  // A hand-over of a person's own tab shows on its toolbar badge; a click there gives it back.
  handBack = (targetId) => {
    for (const profile of extensionProfiles()) agent.view.personDone(tabKey(profile, targetId));
  };
  events.subscribe((event) => {
    if (event.type !== 'handoff' || !extensionProfiles().includes(event.profile)) return;
    relay.switchboard.showHandoff(event.targetId, event.state === 'started' ? event.reason : undefined);
  });
  let control: ControlServer;
  try {
    control = await startControlServer({
      port: options.controlPort ?? DEFAULT_CONTROL_PORT,
      token,
      keys,
      confirmLoosening: (changes, timeoutMs) => consent.confirmLoosening(changes, timeoutMs),
      home: options.home,
      service: profiles,
      agent,
      events,
      actions,
      log: options.log,
      extensionOrigins,
      pairing,
      ...(options.takeoverGraceMs !== undefined ? { takeoverGraceMs: options.takeoverGraceMs } : {}),
    });
  } catch (error) {
    await relay.close();
    throw error;
  }
  // The person's side panel opens their own live view of a tab an agent handed them.
  consent.viewLink = (tab) => control.personsViewLink(tab);
  // Now clawd's own addresses include the control API's (and the live view's).
  controlPort = control.port;
  await syncRelayPolicy();
  await writeServeState(options.home, {
    pid: process.pid,
    version: VERSION,
    controlUrl: control.url,
    relayUrl: relay.url,
  });
  let closing: Promise<void> | undefined;
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
    close() {
      closing ??= (async () => {
        // Calls waiting for the person hear that nobody answered, so no request outlives the server.
        consent.close();
        await control.close();
        events.close();
        await agent.close();
        await profiles.close();
        await relay.close();
        pairing.close();
        await removeServeState(options.home);
      })();
      return closing;
    },
  };
}
