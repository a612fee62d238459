// The person's secrets for a profile: `secret-set NAME` (the value from standard input or a
// prompt that does not echo, never an argument: arguments land in shell history and process
// lists), `secrets` (the names only), `secret-delete NAME`. Written straight to the home
// (home/secret-store.ts): no server needed, and a running one sees them at its next call.

import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { loadConfig } from '../home/config-store';
import { checkSecretName, SecretStore } from '../home/secret-store';
import { output, UsageError, type CliCommand, type CommandContext } from './cli-command';

/** The profile the command is about: --profile, else the configured default. */
async function profileOf(ctx: CommandContext): Promise<string> {
  return ctx.profile ?? (await loadConfig(ctx.home)).browser.defaultProfile;
}

function oneName(args: string[], command: string): string {
  if (args.length !== 1) throw new UsageError(`${command} needs one NAME (the value is read from standard input)`);
  return checkSecretName(args[0]!);
}

/** The secret's value: typed at a prompt that shows nothing, or read whole from a pipe (one trailing newline dropped). */
async function readValue(name: string): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  process.stderr.write(`value of ${name} (not shown): `);
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: true });
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.once('line', resolve);
      rl.once('close', () => reject(new Error('no value typed: nothing kept')));
    });
  } finally {
    rl.close();
    process.stderr.write('\n');
  }
}

export const SECRET_COMMANDS: CliCommand[] = [
  {
    name: 'secret-set',
    group: 'profiles',
    usage: 'secret-set NAME',
    summary: 'keep a secret for the profile: agents type {{secret:NAME}} and never see it',
    details:
      "The value is read from standard input (`printf %s \"$PW\" | clawd secret-set BANK_PW`) or typed at a prompt that\ndoes not echo; never an argument. Kept in the home's secrets.json (mode 0600). An agent's type and fill put\nit in for {{secret:NAME}}; every answer shows it as •••• where it appears as it is (a snapshot, evaluate, the\nnetwork view); the action log and a trace's action names keep the placeholder (a trace records what was\ntyped: stop tracing first).",
    flags: {},
    async run(args, _flags, ctx) {
      const name = oneName(args, 'secret-set');
      const profile = await profileOf(ctx);
      const value = await readValue(name);
      await new SecretStore(ctx.home).set(profile, name, value);
      output(ctx, { profile, name }, () => [`kept ${name} for profile ${profile}: agents type {{secret:${name}}}`]);
    },
  },
  {
    name: 'secrets',
    group: 'profiles',
    usage: 'secrets',
    summary: "the names of the profile's secrets (never their values)",
    flags: {},
    async run(args, _flags, ctx) {
      if (args.length > 0) throw new UsageError('secrets takes no arguments');
      const profile = await profileOf(ctx);
      const names = await new SecretStore(ctx.home).names(profile);
      output(ctx, { profile, names }, () => (names.length ? names : [`no secrets for profile ${profile}`]));
    },
  },
  {
    name: 'secret-delete',
    group: 'profiles',
    usage: 'secret-delete NAME',
    summary: 'forget one of the profile’s secrets',
    flags: {},
    async run(args, _flags, ctx) {
      const name = oneName(args, 'secret-delete');
      const profile = await profileOf(ctx);
      const deleted = await new SecretStore(ctx.home).delete(profile, name);
      output(ctx, { profile, name, deleted }, () => [
        deleted ? `forgot ${name} for profile ${profile}` : `profile ${profile} has no secret named ${name}`,
      ]);
    },
  },
];
