// The CLI's agent-side commands that are not operations of the table: `view` prints a signed-in
// live view link for the person, `skill` prints the agent skill (SKILL.md) generated from the
// operation table. (Every operation's command is derived: operation-commands.ts.)

import { noArguments, output, stringFlag, type CliCommand } from './cli-command';

export const AGENT_COMMANDS: CliCommand[] = [
  {
    name: 'view',
    group: 'agent',
    usage: 'view [--profile P] [--target ID]',
    summary: 'print a link that opens the live view, signed in (valid once, for a minute)',
    details:
      "The live view shows a tab live and lets you act in it: take over from an agent, log in, then press\n\"Done — give it back\", and answer what agents ask you. It is the person's: the command sends the\nperson's key from the home (an agent's token cannot open such a view). The link carries a one-time\ncode in its #fragment (never sent to a server); opening it trades the code for a cookie, so\nnothing secret reaches the browser.",
    flags: { target: { type: 'string', value: 'ID', help: 'the tab to show (default: the one the view picks)' } },
    async run(args, flags, ctx) {
      noArguments(args);
      const link = await (
        await ctx.personClient()
      ).call<{ url: string; expiresInMs: number }>('POST', '/view/codes', { profile: ctx.profile });
      const target = stringFlag(flags, 'target');
      const where = new URLSearchParams({
        ...(stringFlag(flags, 'profile') ? { profile: ctx.profile } : {}),
        ...(target ? { target } : {}),
      });
      const url = `${link.url}${where.size ? `&${where}` : ''}`;
      output(ctx, { ...link, url }, () => [url]);
    },
  },
  {
    name: 'skill',
    group: 'agent',
    usage: 'skill',
    summary: 'print the agent skill (SKILL.md) that teaches a coding agent to drive the browser with clawd',
    details:
      'Prints SKILL.md, in the format coding agents load (name and description front matter, then how to\nuse clawd): generated from the same table as the commands, so it lists exactly what this version does.\nFor Claude Code: mkdir -p ~/.claude/skills/clawd-browser && clawd skill > ~/.claude/skills/clawd-browser/SKILL.md',
    flags: {},
    async run(args, _flags, ctx) {
      noArguments(args);
      // Loaded on use: the generator reads the whole table and its JSON schemas.
      const { skillMarkdown } = await import('./skill-doc');
      ctx.print(skillMarkdown().trimEnd());
    },
  },
];
