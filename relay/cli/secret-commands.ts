// The person's secrets for a profile: `secret-set NAME` (the value from standard input or a
// prompt that does not echo, never an argument: arguments land in shell history and process
// lists), `secret-set NAME --totp` (a TOTP seed or otpauth:// URI, read the same way: agents type
// its current code), `secrets` (the names only), `secret-delete NAME`. Written straight to the home
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
async function readValue(name: string, what = 'value'): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  process.stderr.write(`${what} of ${name} (not shown): `);
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
    usage: 'secret-set NAME [--totp]',
    summary: 'keep a secret for the profile: agents type {{secret:NAME}} (a TOTP code: {{totp:NAME}}) and never see it',
    details:
      "The value is read from standard input (`printf %s \"$PW\" | clawd secret-set BANK_PW`) or typed at a prompt that\ndoes not echo; never an argument. Kept in the home's secrets.json (mode 0600). An agent's type and fill put\nit in for {{secret:NAME}}; every answer shows it as •••• where it appears as it is (a snapshot, evaluate, the\nnetwork view); the action log and a trace's action names keep the placeholder (a trace records what was\ntyped: stop tracing first).\nWith --totp the value is a TOTP seed (base32, as sites show it beside the QR code) or the otpauth://totp/…\nURI the QR code holds (its algorithm SHA1, SHA256 or SHA512, its 6 to 8 digits and its period are kept):\n{{totp:NAME}} types the code of the moment it is put in, and the seed and its codes of the last 10 minutes\nare masked as a secret is. A seed that is not one is refused, saying what is wrong, and nothing is kept.",
    flags: { totp: { type: 'boolean', help: 'the value is a TOTP seed or otpauth:// URI: agents type its code' } },
    async run(args, flags, ctx) {
      const name = oneName(args, 'secret-set');
      const profile = await profileOf(ctx);
      const store = new SecretStore(ctx.home);
      if (flags.totp === true) {
        const { algorithm, digits, period } = await store.setTotp(profile, name, await readValue(name, 'TOTP seed'));
        output(ctx, { profile, name, totp: { algorithm, digits, period } }, () => [
          `kept the TOTP seed ${name} for profile ${profile} (${algorithm}, ${digits} digits every ${period} s): agents type {{totp:${name}}}`,
        ]);
        return;
      }
      await store.set(profile, name, await readValue(name));
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
      const { values, totp } = await new SecretStore(ctx.home).kept(profile);
      const names = [...values.keys(), ...totp.keys()].sort();
      const said = (name: string) => (totp.has(name) ? `${name} (TOTP: {{totp:${name}}})` : name);
      output(ctx, { profile, names, ...(totp.size > 0 ? { totp: [...totp.keys()].sort() } : {}) }, () =>
        names.length ? names.map(said) : [`no secrets for profile ${profile}`],
      );
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
