// The agent skill (SKILL.md), generated from the operation table so it cannot drift from what the
// code does: how a coding agent drives the browser with the CLI. Printed by `clawd skill` and
// shipped in the package (`npm run build` writes it).

import type { Operation } from '../operations/operation';
import { OPERATION_LIST } from '../operations/operation-table';
import { fenceMeaning } from '../operations/page-fence';
import { INSTRUCTIONS } from '../mcp/mcp-tools';
import { operationCliLine } from './operation-commands';

/** Before a task by hand, a recipe: said to agents before the loop. */
const RECIPES_FIRST = [
  '## Before a task: is it a recipe?',
  '',
  '`clawd recipes` lists tasks done before, saved as steps (a session exported with `clawd export --format recipe',
  '--name NAME`). If one fits, `clawd run-recipe NAME NAME=VALUE …` does it without you, each step asked and logged as',
  'your own action; where the page differs it stops, says which step and what it expected, and shows the page with',
  'refs: finish by hand from there. `clawd export` writes a session as a Playwright script (`--format script|test`).',
  '',
];

export function skillMarkdown(): string {
  // Each command with its own flags; the ones every command shares are said once above.
  const own = (o: Operation) => operationCliLine(o).replace(/ \[--(target|session|timeout|snapshot)\b[^\]]*\]/g, '');
  const listed = new Set<Operation>();
  const byGroup = (test: (o: Operation) => boolean) =>
    OPERATION_LIST.filter((o) => !listed.has(o) && test(o)).map((o) => {
      listed.add(o);
      return `- \`${own(o)}\` — ${o.summary}.`;
    });
  const lines = [
    '---',
    'name: clawd-browser',
    'description: Drive a real browser from the shell with the clawd CLI — a page read as a list of elements with refs (e1, e2, …), actions by ref, the page as Markdown, screenshots, downloads, and handing the tab to the person for a log-in or CAPTCHA. Use when a task needs a web page: open, read, fill in, click through, check what a site shows.',
    '---',
    '',
    '# Driving a browser with clawd',
    '',
    'A clawd server must be running. If a command says it cannot reach one, ask the person to start it (`npm start` in',
    'the clawd folder, or `clawd install` once and Chrome starts it); over MCP, `clawd mcp` starts what it needs.',
    '',
    "Two kinds of browser: the default profile (`clawd`) is clawd's own Chromium, isolated — no log-ins, good for",
    "public pages. `--profile chrome` is the person's own browser, and only the tabs they handed you with the clawd",
    'toolbar button (`clawd tabs --profile chrome` lists them): use it when the task needs their log-ins or a tab they',
    'gave you.',
    '',
    ...RECIPES_FIRST,
    '## The loop',
    '',
    "1. `clawd navigate https://…`: starts the profile's browser if needed, waits for the load, and answers the page's",
    '   brief view (headings and what can be acted on, with refs).',
    '2. Look: `clawd find TEXT` answers the lines that match, with their refs — the cheapest look at a big page;',
    '   `clawd snapshot` gives every element you can act on (ref, role, name, value, state) with headings and text.',
    '   Long pages are cut: go on with `--after REF` (the ref the cut names).',
    '3. Act by ref: `clawd click e12`, `clawd type e3 hello --submit`, `clawd fill --fields \'[{"ref":"e4","value":"Ada"}]\'`,',
    "   `clawd select e7 green`. `--snapshot diff` answers what the action changed (`brief`: the page's brief view,",
    '   `full`: the whole page, `none`: just how it ended), so you rarely need a second look.',
    '4. A ref whose element changed or went is refused as stale: look again. Refs are never reused.',
    '',
    `The page's words come fenced: ${fenceMeaning()} The nonce is new with every command.`,
    '',
    "To read rather than act, `clawd content` gives the page's article as Markdown, far smaller than a snapshot.",
    'When you cannot go on (a log-in, a CAPTCHA, a payment): `clawd handoff "Log in, then press Done"` gives the tab',
    'to the person and prints a link: show it to them at once. Then `clawd handoff-wait` returns when they give the',
    'tab back; look again before acting.',
    'A secret the person kept (`clawd secrets` lists the names) is typed as `{{secret:NAME}}` in `type` or `fill`: the',
    'page gets the value, you see `••••`. A second factor: `{{totp:NAME}}` types the current code of a kept TOTP seed,',
    'unseen too; a code the site sent the person (e-mail, SMS): `{{code:NAME}}`, which they type in their side panel.',
    'A call the person must answer first may end `waiting_for_person` with a question id: `clawd ask-wait ID`, then',
    'make the same call again (it is not asked twice).',
    '',
    "Every command takes `--profile NAME` and `--json` (the API's answer as JSON); commands on a tab take `--target ID`",
    '(an id or unique prefix from `clawd tabs`), `--session NAME` (tabs you change are held for you) and `--timeout MS`;',
    'actions take `--snapshot none|brief|diff|full`.',
    "`clawd <command> --help` lists a command's flags. Errors say what to do next.",
    '',
    '## Reading the page',
    '',
    ...byGroup((o) => ['snapshot', 'content', 'screenshot', 'console', 'pdf'].includes(o.name)),
    '',
    '## Acting',
    '',
    ...byGroup((o) => o.http.path === '/act' || o.name === 'navigate'),
    '',
    '## Files, dialogs and the person',
    '',
    ...byGroup(
      (o) =>
        o.http.path.startsWith('/hooks') ||
        o.name === 'downloads' ||
        o.name.startsWith('handoff') ||
        o.name === 'release',
    ),
    '',
    '## Browser, tabs, the origin policy, the log',
    '',
    // What is the person's to set (the origin policy) is not taught to agents: no MCP tool has it either.
    ...byGroup((o) => o.mcp.tool !== null),
    '',
    `Over MCP the same operations are tools (\`clawd mcp\`): ${INSTRUCTIONS.split('. ')[0]}.`,
  ];
  return `${lines.join('\n')}\n`;
}
