// The agent layer: snapshots with refs, actions by ref, navigation, screenshots, console, PDF
// and arming hooks, the same for every profile driver (managed, extension, remote), because all
// of them are Playwright over CDP. This file finds the page, keeps refs per target, and maps
// errors; the pieces it calls each do one thing.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ClawdError, isClawdError } from '../errors';
import { seconds, settlesWithin, within } from '../time-limit';
import type { Logger } from '../log';
import type { ProfileDriver } from '../profiles/profile-driver';
import { checkOpenUrl, type ProfileService } from '../profiles/profile-service';
import { clampTimeout, parseAct, type ActRequest } from './act-request';
import { runAct } from './actions';
import { toAgentError } from './agent-errors';
import { imageSize, labelBoxes, saveCapture, withLabels } from './capture';
import { Hooks, armTimeout } from './hooks';
import { PageTracker } from './page-tracker';
import { PlaywrightConnections } from './pw-connections';
import { RefStore, refParam, resolveRef } from './ref-store';
import { normalizeRef, renderSnapshot, truncate, type AriaNode } from './snapshot-render';

export type Query = Record<string, string | undefined>;
type Body = Record<string, unknown>;

/** A snapshot of a very large page (thousands of elements) takes seconds on a busy machine. */
const SNAPSHOT_TIMEOUT_MS = 30_000;
const SCREENSHOT_TIMEOUT_MS = 20_000;
/** How long a hook's click may take to open the chooser or dialog it was armed for. */
const AFTER_CLICK_MS = 5_000;
/** How long a capture on a user's browser may stall before its tab is brought to the front. */
const BACKGROUND_CAPTURE_MS = 3_000;

const LEVELS: Record<string, number> = { debug: 0, trace: 0, log: 1, info: 1, dir: 1, dirxml: 1, table: 1, dialog: 1, warning: 2, error: 3, assert: 3, pageerror: 3 };

/** The page's title, or '' when the page does not answer in time (it is informational). */
const titleOf = (page: Page): Promise<string> => within(page.title(), 5_000, () => new Error('no title')).catch(() => '');

function flag(value: string | undefined, field: string): boolean {
  if (value === undefined || value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new ClawdError('bad_request', `${field} must be 1/true or 0/false, got ${JSON.stringify(value)}`);
}

function count(value: string | undefined, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new ClawdError('bad_request', `${field} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}

export class AgentService {
  readonly #connections: PlaywrightConnections;
  readonly #tracker = new PageTracker();
  readonly #refs = new RefStore();
  readonly #hooks = new Hooks();
  /** The tab each profile last acted on: the default when a request names none. */
  readonly #lastTarget = new Map<string, string>();

  constructor(
    private readonly profiles: ProfileService,
    private readonly home: string,
    private readonly log: Logger,
  ) {
    this.#connections = new PlaywrightConnections(log);
  }

  async #page(profile: string, targetId: string | undefined): Promise<{ page: Page; targetId: string; driver: ProfileDriver; key: string }> {
    const driver = this.profiles.driver(profile);
    if (driver.driver === 'managed' && !this.#connections.isConnected(driver.playwright.url) && !(await driver.status(true)).running) {
      throw new ClawdError('not_running', `profile ${profile} is not running: start it first (POST /start, clawd start --profile ${profile})`);
    }
    if (driver.driver === 'extension' && !this.#connections.isConnected(driver.playwright.url)) {
      const status = await driver.status(true);
      if (!status.running) throw new ClawdError('extension_not_connected', status.hint ?? `the clawd extension is not connected to the relay`);
    }
    const browser = await this.#connections.browser(driver.playwright);
    const found = await this.#tracker.find(browser, targetId, this.#lastTarget.get(profile));
    this.#tracker.state(found.page, driver.driver === 'extension' ? 'leave' : 'dismiss');
    this.#lastTarget.set(profile, found.targetId);
    return { ...found, driver, key: `${profile}\u0000${found.targetId}` };
  }

  #checkEvaluate(driver: ProfileDriver): void {
    if (driver.driver === 'extension' && !this.profiles.settings.evaluateEnabled) {
      throw new ClawdError(
        'evaluate_disabled',
        `evaluate is off for the ${driver.name} profile: it is your own, logged-in browser. To allow it, set "evaluateEnabled": true in the browser section of config.json and restart clawd serve`,
      );
    }
  }

  async snapshot(profile: string, query: Query): Promise<Record<string, unknown>> {
    const format = query.format ?? 'ai';
    if (format !== 'ai' && format !== 'role' && format !== 'aria') throw new ClawdError('bad_request', `format must be ai, role or aria, got ${JSON.stringify(format)}`);
    const options = {
      interactive: flag(query.interactive, 'interactive'),
      compact: flag(query.compact, 'compact'),
      depth: count(query.depth, 'depth', 0, 1_000),
      limit: count(query.limit, 'limit', 1, 100_000),
      maxChars: count(query.maxChars, 'maxChars', 100, 10_000_000),
    };
    const { page, targetId, key } = await this.#page(profile, query.targetId);
    let text: string;
    let refs = new Map<string, { role: string; name: string; nth: number }>();
    try {
      if (format === 'aria') {
        text = await this.#axTree(page, options.limit ?? 2_000);
      } else {
        const json = (await (query.selector ? page.locator(query.selector).first() : page).ariaSnapshotJSON({ mode: 'ai', timeout: SNAPSHOT_TIMEOUT_MS })) as unknown as AriaNode[] | AriaNode;
        const roots: Array<AriaNode | string> = Array.isArray(json) ? json : [json];
        const within = query.frame !== undefined ? this.#frameRef(key, query.frame) : undefined;
        const rendered = renderSnapshot(roots, { format, ...options, ...(within ? { within } : {}) });
        if (within && !rendered.found) throw new ClawdError('ref_stale', `frame ${normalizeRef(query.frame)} is stale: that iframe is gone; take a new snapshot`);
        this.#refs.set(key, { format, refs: rendered.refs });
        refs = rendered.refs;
        text = rendered.text;
      }
    } catch (error) {
      throw toAgentError(error, { what: `snapshot of ${targetId}`, timeoutMs: SNAPSHOT_TIMEOUT_MS });
    }
    const { text: snapshot, truncated } = truncate(text, options.maxChars);
    return {
      format,
      targetId,
      url: page.url(),
      title: await titleOf(page),
      snapshot,
      refs: Object.fromEntries([...refs].map(([ref, t]) => [ref, { role: t.role, name: t.name, ...(t.nth > 0 ? { nth: t.nth } : {}) }])),
      stats: { chars: snapshot.length, lines: snapshot === '' ? 0 : snapshot.split('\n').length, refs: refs.size },
      truncated,
    };
  }

  /**
   * Playwright's ref of the iframe a `frame` parameter names: one of the iframe refs of this
   * tab's last snapshot (refs are numbered over the whole page, so any snapshot's will do).
   */
  #frameRef(key: string, frame: string): string {
    const ref = normalizeRef(frame);
    const target = ref ? this.#refs.get(key)?.refs.get(ref) : undefined;
    if (!target || target.role !== 'iframe') {
      throw new ClawdError('bad_request', `frame ${JSON.stringify(frame)} is not the ref of an iframe in this tab's last snapshot: take a snapshot and use an iframe's ref`);
    }
    return target.pw;
  }

  /** The accessibility tree as Chromium has it, flat and indented: for debugging, no refs. */
  async #axTree(page: Page, limit: number): Promise<string> {
    const session = await page.context().newCDPSession(page);
    try {
      // A busy page can keep the accessibility tree waiting as long as it likes.
      const asked = session.send('Accessibility.getFullAXTree');
      const { nodes } = (await within(asked, SNAPSHOT_TIMEOUT_MS, () => new ClawdError('action_timeout', `snapshot: the page did not give its accessibility tree within ${seconds(SNAPSHOT_TIMEOUT_MS)}`))) as {
        nodes: Array<{ nodeId: string; parentId?: string; ignored: boolean; role?: { value?: string }; name?: { value?: string } }>;
      };
      const depthOf = new Map<string, number>();
      const lines: string[] = [];
      for (const node of nodes) {
        const depth = node.parentId !== undefined ? (depthOf.get(node.parentId) ?? 0) + (node.ignored ? 0 : 1) : 0;
        depthOf.set(node.nodeId, depth);
        if (node.ignored || lines.length >= limit) continue;
        const name = node.name?.value ? ` ${JSON.stringify(node.name.value)}` : '';
        lines.push(`${'  '.repeat(depth)}- ${node.role?.value ?? 'unknown'}${name}`);
      }
      return lines.join('\n');
    } finally {
      await session.detach().catch(() => {});
    }
  }

  async act(profile: string, body: Body): Promise<Record<string, unknown>> {
    const request = parseAct(body);
    const { page, targetId, driver, key } = await this.#page(profile, request.targetId);
    const entry = this.#refs.get(key);
    const resolve = (ref: string) => resolveRef(page, entry, ref);
    try {
      const extra = await runAct({ page, resolve, checkEvaluate: () => this.#checkEvaluate(driver) }, request);
      return { ok: true, kind: request.kind, targetId, url: page.isClosed() ? null : page.url(), timeoutMs: request.timeoutMs, ...extra };
    } catch (error) {
      if (isClawdError(error)) throw error;
      // The element went away while the action waited for it: that is a stale ref, not a timeout.
      for (const ref of refsOf(request)) {
        const stale = await resolve(ref).then(() => false, (e: unknown) => isClawdError(e) && e.code === 'ref_stale');
        if (stale) throw new ClawdError('ref_stale', `ref ${ref} is stale: take a new snapshot`);
      }
      throw toAgentError(error, { what: `${request.kind}${refsOf(request).length ? ` ${refsOf(request).join(' → ')}` : ''}`, timeoutMs: request.timeoutMs });
    }
  }

  async navigate(profile: string, body: Body): Promise<Record<string, unknown>> {
    const url = checkOpenUrl(body.url);
    const timeout = clampTimeout(body.timeoutMs, 20_000);
    const { page, targetId } = await this.#page(profile, typeof body.targetId === 'string' ? body.targetId : undefined);
    try {
      const response = await page.goto(url, { timeout, waitUntil: 'load' });
      return { ok: true, targetId, url: page.url(), title: await titleOf(page), status: response?.status() ?? null };
    } catch (error) {
      throw toAgentError(error, { what: `navigate to ${url}`, timeoutMs: timeout });
    }
  }

  async screenshot(profile: string, body: Body): Promise<Record<string, unknown>> {
    const type = body.type ?? 'png';
    if (type !== 'png' && type !== 'jpeg') throw new ClawdError('bad_request', `type must be png or jpeg, got ${JSON.stringify(type)}`);
    if (body.element !== undefined && typeof body.element !== 'string') throw new ClawdError('bad_request', 'element must be a CSS selector');
    const { page, targetId, key, driver } = await this.#page(profile, typeof body.targetId === 'string' ? body.targetId : undefined);
    const ref = body.ref !== undefined ? refParam(body.ref) : undefined;
    const entry = this.#refs.get(key);
    const capture = async (timeout: number) => {
      const options = { type, ...(type === 'jpeg' ? { quality: 80 } : {}), timeout } as const;
      if (ref) return (await resolveRef(page, entry, ref)).screenshot(options);
      if (typeof body.element === 'string') return page.locator(body.element).first().screenshot(options);
      return page.screenshot({ ...options, fullPage: body.fullPage === true });
    };
    // Headless Chromium commits no frames for a tab behind another in its window: its capture
    // hangs (measured: about every other time). The agent's own browser brings the tab to the
    // front first. A user's browser is left as it is unless the capture stalls (headed Chrome
    // captures background tabs), and the answer says when the tab was brought forward.
    let broughtToFront = false;
    const shoot = async () => {
      if (driver.driver === 'managed') {
        await page.bringToFront();
        return capture(SCREENSHOT_TIMEOUT_MS);
      }
      try {
        return await capture(BACKGROUND_CAPTURE_MS);
      } catch (error) {
        if ((error as Error).name !== 'TimeoutError') throw error;
        await page.bringToFront();
        broughtToFront = true;
        return capture(SCREENSHOT_TIMEOUT_MS);
      }
    };
    let buffer: Buffer;
    let labels: number | undefined;
    try {
      if (body.labels === true) {
        if (!entry) throw new ClawdError('ref_unknown', 'labels: this tab has no snapshot yet; take one first, its refs are what gets labelled');
        const byPw = new Map([...entry.refs].map(([ref, t]) => [t.pw, ref]));
        const json = (await page.ariaSnapshotJSON({ mode: 'ai', boxes: true, timeout: SNAPSHOT_TIMEOUT_MS })) as unknown as AriaNode[];
        ({ buffer, labels } = await withLabels(page, labelBoxes(json, byPw), shoot));
      } else {
        buffer = await shoot();
      }
    } catch (error) {
      throw toAgentError(error, { what: `screenshot${ref ? ` of ${ref}` : ''}` });
    }
    const file = await saveCapture(path.join(this.home, 'screenshots'), profile, type === 'jpeg' ? 'jpg' : 'png', buffer);
    return { path: file, type, ...imageSize(buffer), bytes: buffer.length, targetId, ...(labels !== undefined ? { labels } : {}), ...(broughtToFront ? { broughtToFront } : {}) };
  }

  async console(profile: string, query: Query): Promise<Record<string, unknown>> {
    const level = query.level ?? 'debug';
    const min = { debug: 0, info: 1, log: 1, warning: 2, error: 3 }[level];
    if (min === undefined) throw new ClawdError('bad_request', `level must be debug, info, warning or error, got ${JSON.stringify(level)}`);
    const { page, targetId, driver } = await this.#page(profile, query.targetId);
    const state = this.#tracker.state(page, driver.driver === 'extension' ? 'leave' : 'dismiss');
    const keep = (entry: { type: string }) => (LEVELS[entry.type] ?? 1) >= min;
    return { targetId, level, messages: state.console.filter(keep), errors: state.errors };
  }

  async pdf(profile: string, body: Body): Promise<Record<string, unknown>> {
    const { page, targetId } = await this.#page(profile, typeof body.targetId === 'string' ? body.targetId : undefined);
    let buffer: Buffer;
    try {
      buffer = await page.pdf();
    } catch (error) {
      throw toAgentError(error, { what: 'pdf' });
    }
    const file = await saveCapture(path.join(this.home, 'pdfs'), profile, 'pdf', buffer);
    return { path: file, bytes: buffer.length, targetId };
  }

  async fileChooser(profile: string, body: Body): Promise<Record<string, unknown>> {
    const paths = body.paths;
    if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string' && p !== '')) {
      throw new ClawdError('bad_request', 'paths must be a non-empty list of file paths');
    }
    const files = paths.map((p) => path.resolve(p as string));
    for (const [i, file] of files.entries()) {
      const stat = await fs.stat(file).catch(() => undefined);
      if (!stat?.isFile()) throw new ClawdError('bad_request', `paths[${i}] ${JSON.stringify(paths[i])} does not exist or is not a file`);
    }
    return this.#arm(profile, body, (page, timeoutMs) => this.#hooks.armFileChooser(page, files, timeoutMs).then((names) => ({ files: names })), 'file-chooser');
  }

  async dialog(profile: string, body: Body): Promise<Record<string, unknown>> {
    if (typeof body.accept !== 'boolean') throw new ClawdError('bad_request', 'accept must be true or false');
    if (body.promptText !== undefined && typeof body.promptText !== 'string') throw new ClawdError('bad_request', 'promptText must be a string');
    const accept = body.accept;
    const promptText = body.promptText as string | undefined;
    return this.#arm(
      profile,
      body,
      (page, timeoutMs, driver) => this.#hooks.armDialog(page, this.#tracker.state(page, driver.driver === 'extension' ? 'leave' : 'dismiss'), accept, promptText, timeoutMs).then((dialog) => ({ dialog })),
      'dialog',
    );
  }

  /** Arms a hook; with `ref`, clicks it and waits for the hook to be answered. */
  async #arm(profile: string, body: Body, arm: (page: Page, timeoutMs: number, driver: ProfileDriver) => Promise<Record<string, unknown>>, hook: 'file-chooser' | 'dialog'): Promise<Record<string, unknown>> {
    const timeoutMs = armTimeout(body.timeoutMs);
    const ref = body.ref !== undefined ? refParam(body.ref) : undefined;
    const { page, targetId, key, driver } = await this.#page(profile, typeof body.targetId === 'string' ? body.targetId : undefined);
    const target = ref ? await resolveRef(page, this.#refs.get(key), ref) : undefined;
    const answered = arm(page, timeoutMs, driver);
    if (!target) {
      answered.catch((error: Error) => this.log.debug(`${hook} hook: ${error.message}`));
      return { armed: hook, targetId, timeoutMs };
    }
    answered.catch(() => {});
    try {
      await target.click({ timeout: clampTimeout(body.clickTimeoutMs) });
    } catch (error) {
      this.#hooks.disarm(page, hook);
      throw toAgentError(error, { what: `${hook} hook, clicking ${ref}` });
    }
    // A click that opens a chooser or dialog does so at once: a click that opened nothing must
    // not leave the hook armed for minutes, for some later click to meet.
    // A hook that failed has settled too: its error is answered below.
    if (!(await settlesWithin(answered.catch(() => {}), AFTER_CLICK_MS))) {
      this.#hooks.disarm(page, hook);
      const what = hook === 'dialog' ? 'dialog' : 'file chooser';
      throw new ClawdError('action_failed', `clicking ${ref} opened no ${what} within ${seconds(AFTER_CLICK_MS)}, so the hook was disarmed: use the ref of the element that opens the ${what}${hook === 'file-chooser' ? ' (the file input, or its button)' : ''}`);
    }
    try {
      return { ok: true, armed: hook, targetId, ...(await answered) };
    } catch (error) {
      throw toAgentError(error, { what: `${hook} hook` });
    }
  }

  async close(): Promise<void> {
    await this.#connections.close();
  }
}

function refsOf(request: ActRequest): string[] {
  switch (request.kind) {
    case 'drag':
      return [request.startRef, request.endRef];
    case 'fill':
      return request.fields.map((f) => f.ref);
    case 'click':
    case 'type':
    case 'hover':
    case 'scrollIntoView':
    case 'select':
      return [request.ref];
    case 'press':
    case 'evaluate':
      return request.ref ? [request.ref] : [];
    default:
      return [];
  }
}
