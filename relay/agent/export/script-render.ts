// A recipe (shared/recipe.ts) written as a program a person runs without a model: `script`, a
// plain Node program on playwright-core, or `test`, a Playwright Test spec. Both connect to a
// clawd profile by its CDP URL (the relay's for the person's tabs, a managed profile's port), so
// what they do goes through clawd's policy and asks as a raw client's does. Every value the page
// or the agent wrote is put in as a JSON string literal: nothing of it is code.

import type { ElementLocator, LocatedElement } from '../../../shared/element-locator';
import { VALUE_MARK, type Recipe, type RecipeStep } from '../../../shared/recipe';
import { SCRIPT_TOTP, SCRIPT_TOTP_IMPORT } from './script-totp';

export type ScriptFormat = 'script' | 'test';

export interface ScriptTarget {
  /** The profile's CDP URL at export time, without its token (a run adds CLAWD_TOKEN's). */
  cdpUrl: string;
  profile: string;
}

const str = (value: string): string => JSON.stringify(value);
/** Words in a `//` comment: one line, whatever the page wrote (a line break would end the comment). */
const commentWords = (value: string): string => value.replace(/[\r\n\u2028\u2029]+/g, ' ');
/** What the files import, where they run (not this process: the relay never loads them). */
const SCRIPT_PACKAGE = 'playwright-core';
const TEST_PACKAGE = '@playwright/test';

/** The program, as the text of an `.mjs` file. */
export function renderScript(recipe: Recipe, format: ScriptFormat, target: ScriptTarget): string {
  const body = recipe.steps.map((step) => `  ${stepCode(step, format)}`).join('\n');
  return format === 'test' ? testFile(recipe, target, body) : scriptFile(recipe, target, body);
}

function header(recipe: Recipe, target: ScriptTarget, run: string): string {
  const params = recipe.params.map(
    (p) => `//   ${p.name}: ${commentWords(p.about ?? '')}${p.default === undefined ? ' (no default: give it)' : ''}`,
  );
  const secrets = [
    ...recipe.secrets.map((name) => `//   ${name}: from CLAWD_SECRET_${name}`),
    ...(recipe.totp ?? []).map(
      (name) =>
        `//   ${name}: a TOTP code, made when the step runs from CLAWD_TOTP_${name} (its seed or otpauth:// URI)`,
    ),
  ];
  return [
    `// Written by clawd from ${commentWords(recipe.source)}.`,
    `// Run: ${run}`,
    `// It connects to clawd's profile ${str(target.profile)} (CLAWD_CDP_URL, else the URL below, with CLAWD_TOKEN),`,
    '// so the origin policy and the asks hold for it as for any client of that profile.',
    ...(params.length > 0 ? ['// Parameters (--param NAME=VALUE, or CLAWD_PARAMS as JSON):', ...params] : []),
    ...(secrets.length > 0 ? ['// Secrets (never written here):', ...secrets] : []),
  ].join('\n');
}

/** The part both formats share: where to connect, the parameters, and how a value is put together. */
function runtime(recipe: Recipe, target: ScriptTarget): string {
  const defaults = Object.fromEntries(recipe.params.map((p) => [p.name, p.default ?? null]));
  return `const DEFAULT_CDP_URL = ${str(target.cdpUrl)};
const DEFAULTS = ${JSON.stringify(defaults, null, 2)};

/** The profile's CDP URL, with the server's token when it has none. */
function cdpUrl() {
  const url = new URL(process.env.CLAWD_CDP_URL ?? DEFAULT_CDP_URL);
  if (!url.searchParams.has('token') && process.env.CLAWD_TOKEN) url.searchParams.set('token', process.env.CLAWD_TOKEN);
  return url.toString();
}

/** The parameters: the defaults, CLAWD_PARAMS (JSON), then each --param NAME=VALUE. */
function readParams(args) {
  const params = { ...DEFAULTS, ...JSON.parse(process.env.CLAWD_PARAMS ?? '{}') };
  for (let i = 0; i < args.length; i++) {
    const given = args[i] === '--param' ? args[++i] : args[i]?.startsWith('--param=') ? args[i].slice(8) : undefined;
    if (given === undefined) continue;
    const at = given.indexOf('=');
    if (at < 1 || !Object.hasOwn(DEFAULTS, given.slice(0, at))) throw new Error(\`unknown parameter \${given}: known are \${Object.keys(DEFAULTS).join(', ')}\`);
    params[given.slice(0, at)] = given.slice(at + 1);
  }
  const missing = Object.keys(params).filter((name) => params[name] === null || params[name] === undefined);
  if (missing.length > 0) throw new Error(\`give --param \${missing[0]}=VALUE (it has no default)\`);
  return params;
}

/** A step's value: its {{param:NAME}}, {{secret:NAME}} and {{totp:NAME}} marks put in (a secret from CLAWD_SECRET_NAME, a TOTP code made now from CLAWD_TOTP_NAME). */
function value(params, template) {
  return template.replace(${VALUE_MARK.toString()}, (_, kind, name) => {
    if (kind === 'param') return String(params[name]);
    if (kind === 'totp') {
      const seed = process.env['CLAWD_TOTP_' + name];
      if (seed === undefined) throw new Error(\`set CLAWD_TOTP_\${name} to the TOTP seed (or otpauth:// URI): the step types its code\`);
      return totpCode(seed);
    }
    const secret = process.env['CLAWD_SECRET_' + name];
    if (secret === undefined) throw new Error(\`set CLAWD_SECRET_\${name}: the step types that secret\`);
    return secret;
  });
}

/** The frame an element is in: the page's own document, or the frame whose URL it had. */
function frameOf(page, url) {
  if (url === undefined) return page;
  const frame = page.frames().find((f) => f.url() === url);
  if (!frame) throw new Error(\`no frame at \${url} on the page\`);
  return frame;
}${recipe.totp?.length ? `\n\n${SCRIPT_TOTP_IMPORT}\n\n${SCRIPT_TOTP}` : ''}`;
}

function scriptFile(recipe: Recipe, target: ScriptTarget, body: string): string {
  return `${header(recipe, target, 'node this-file.mjs [--param NAME=VALUE …] (with playwright-core installed)')}

import { chromium } from ${str(SCRIPT_PACKAGE)};

${runtime(recipe, target)}

/** What the page should say after a step: waited for, as Playwright's expect would. */
async function expectText(page, text) {
  await page.getByText(text).first().waitFor({ state: 'visible', timeout: 10_000 });
}
async function expectTitle(page, title) {
  for (const end = Date.now() + 10_000; (await page.title()) !== title; ) {
    if (Date.now() > end) throw new Error(\`the page's title is \${JSON.stringify(await page.title())}, not \${JSON.stringify(title)}\`);
    await page.waitForTimeout(100);
  }
}

const params = readParams(process.argv.slice(2));
const browser = await chromium.connectOverCDP(cdpUrl());
try {
  const context = browser.contexts()[0];
  let page = context.pages()[0] ?? (await context.newPage());
${body}
  console.log('done: ' + page.url());
} finally {
  await browser.close(); // a connection over CDP: closing it leaves the browser and its tabs
}
`;
}

function testFile(recipe: Recipe, target: ScriptTarget, body: string): string {
  return `${header(recipe, target, 'npx playwright test this-file.spec.mjs (with @playwright/test installed)')}

import { chromium, expect, test } from ${str(TEST_PACKAGE)};

${runtime(recipe, target)}

test(${str(`replays ${recipe.source}`)}, async () => {
  const params = readParams([]);
  const browser = await chromium.connectOverCDP(cdpUrl());
  try {
    const context = browser.contexts()[0];
    let page = context.pages()[0] ?? (await context.newPage());
${body.replace(/^ {2}/gm, '    ')}
  } finally {
    await browser.close();
  }
});
`;
}

/** One step as a line of code. */
function stepCode(step: RecipeStep, format: ScriptFormat): string {
  switch (step.do) {
    case 'goto':
      return `await page.goto(${str(step.url)});`;
    case 'newPage':
      return `page = await context.newPage();${step.url ? ` await page.goto(${str(step.url)});` : ''}`;
    case 'click':
    case 'hover':
    case 'focus':
      return `await ${find(step.element)}.${step.do}();`;
    case 'scrollIntoView':
      return `await ${find(step.element)}.scrollIntoViewIfNeeded();`;
    case 'fill':
      return `await ${find(step.element)}.fill(${valueCode(step.value)});`;
    case 'check':
      return `await ${find(step.element)}.setChecked(${step.checked});`;
    case 'select':
      return `await ${find(step.element)}.selectOption([${step.values.map(valueCode).join(', ')}]);`;
    case 'press':
      return step.element
        ? `await ${find(step.element)}.press(${str(step.key)});`
        : `await page.keyboard.press(${str(step.key)});`;
    case 'drag':
      return `await ${find(step.element)}.dragTo(${find(step.onto)});`;
    case 'expect':
      return expectCode(step, format);
    case 'note':
      return `// ${commentWords(step.text)}`;
  }
}

function expectCode(step: { text?: string; title?: string }, format: ScriptFormat): string {
  if (step.title !== undefined)
    return format === 'test'
      ? `await expect(page).toHaveTitle(${str(step.title)});`
      : `await expectTitle(page, ${str(step.title)});`;
  const text = valueCode(step.text ?? '');
  return format === 'test'
    ? `await expect(page.getByText(${text}).first()).toBeVisible();`
    : `await expectText(page, ${text});`;
}

/** A value: a parameter or secret as such, a template with several marks through value(). */
function valueCode(template: string): string {
  const whole = /^\{\{(param|secret):([A-Za-z0-9_-]+)\}\}$/.exec(template);
  if (whole?.[1] === 'param') return `params[${str(whole[2]!)}]`;
  return template.search(VALUE_MARK) >= 0 ? `value(params, ${str(template)})` : str(template);
}

/** The Playwright locator of an element, in its frame. */
function find(element: LocatedElement): string {
  const within = element.frame === undefined ? 'page' : `frameOf(page, ${str(element.frame)})`;
  return `${within}.${locatorCode(element.locator)}`;
}

function locatorCode(locator: ElementLocator): string {
  switch (locator.by) {
    case 'testId':
      return `getByTestId(${str(locator.testId)})`;
    case 'role':
      return `getByRole(${str(locator.role)}, { name: ${str(locator.name)}, exact: true })${
        locator.nth !== undefined ? `.nth(${locator.nth})` : ''
      }`;
    case 'label':
      return `getByLabel(${str(locator.label)}, { exact: true })`;
    case 'placeholder':
      return `getByPlaceholder(${str(locator.placeholder)}, { exact: true })`;
    case 'css':
      return `locator(${str(locator.css)})`;
  }
}
