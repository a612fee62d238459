// What one agent operation is, defined once: its input (a zod object), where it lives on the
// control API, its CLI command and flags, the MCP tool it belongs to, an example, and the one
// function that turns its result into the short text an agent reads. The HTTP routes, the MCP
// tools, the CLI commands and their help, the agent skill and docs/reference.md are all derived
// from these entries (operation-table.ts lists them), so a field added here reaches every door.

import type { z } from 'zod';
import type { AskKind } from '../../shared/ask-kinds';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** Where the operation lives on the control API. GET and DELETE take the input as a query string, POST as a JSON body. */
export interface HttpRoute {
  method: HttpMethod;
  /** e.g. `/snapshot`, or `/tabs/:targetId` (a `:field` is taken from the input). */
  path: string;
  /** `POST /act`: this operation's `kind` in the body. */
  kind?: string;
}

/** One positional argument of a CLI command: it fills a field. */
export interface CliArg {
  field: string;
  /** Shown in the usage line, e.g. REF or URL. */
  value: string;
  /** Takes the remaining words: joined by spaces for a text field, as a list for a list field. */
  rest?: boolean;
  optional?: boolean;
}

export interface CliSpec {
  group: 'profiles' | 'agent';
  /** The command's name, when not the operation's. */
  name?: string;
  args?: CliArg[];
  /** A field's flag when not its kebab-case name (doubleClick → `double`), and what to write after it. */
  flags?: Record<string, { flag?: string; value?: string }>;
  /** Flags of the command that no field has, resolved into fields before the call (dialog's --dismiss). */
  extra?: Record<string, { help: string; apply(values: Record<string, unknown>): void }>;
  /** The exit code for an answer that is not a success (a wait that ran out); 0 otherwise. */
  exitCode?(result: any): number;
  /** Given a positional argument, the command is another operation's (`clawd network n12` is networkRequest's). */
  withArgument?: { operation: string; value: string };
  /** A flag that keeps the command going: after each answer it asks again with `next`'s input (`log --follow`). */
  repeat?: { flag: string; help: string; next(result: any, input: Record<string, unknown>): Record<string, unknown> };
}

export interface McpSpec {
  /** The tool: several operations can share one, chosen by `choose` (act's `kind`, tabs' `action`). */
  tool: string;
  /** In a shared tool, the value of its choosing field that means this operation. */
  as?: string;
  /** What the tool assumes for a field the agent leaves out, where it differs from the API's (navigate answers a brief view). */
  defaults?: Record<string, unknown>;
}

/** An operation an agent must not have as a tool, and why (it is the person's: loosening the agent's own limits). */
export interface NotForAgents {
  tool: null;
  as?: undefined;
  defaults?: undefined;
  why: string;
}

/** What happens after the operation when the caller asks (`handoff --wait`): another operation, fed from this one's answer. */
export interface FollowUp<R> {
  /** The field of the input that asks for it; a front-door field, not sent to the server. */
  field: string;
  operation: string;
  input(result: R, input: Record<string, unknown>): Record<string, unknown>;
}

/** What a call touches, for the questions that depend on it: how it may send a form, the address it loads (its elements: element-refs.ts). */
export interface Touches {
  /** How it may send a form: a click on its element, or Enter in it (or in the focused field). */
  sends?: 'click' | 'enter';
  /** The address it loads (a navigation, a new tab). */
  url?: string;
}

/**
 * How a call passes the one gate every call that changes a tab, or that the person may be asked
 * about, goes through before it runs (agent/tab-gate.ts): who holds the tab, the person's own
 * hands on it, and the questions the person asked to be asked.
 */
export interface GateSpec<I> {
  /** It changes the tab it names: refused while another session or the person holds it; waits while the person is using it. */
  changes: boolean;
  /** It acts on the tab, not its page (closing it): a crashed or stuck page does not stop it. */
  tabOnly?: true;
  /** What it always is that the person may ask about (evaluate, download, upload, storage). */
  asks?: readonly AskKind[];
  /** What it is by its input (a wait with a function runs the agent's code). */
  asksFor?(input: I): readonly AskKind[];
  /** What it touches (submit and new-site questions depend on it). */
  touches?(input: I): Touches;
  /**
   * It opens a new tab on `touches.url`: when the person asks about what only the requests tell,
   * the tab opens blank and loads under a watch, as a navigation does (a redirect to another
   * site, a form its page sends at once).
   */
  opens?: true;
}

export interface Operation<S extends z.AnyZodObject = z.AnyZodObject, R = any> {
  /** Its name: the MCP act kind or tool action, and the key of the table. */
  name: string;
  /** One line on what it is for (MCP description, CLI summary, the skill, the reference). */
  summary: string;
  /** More about it, one paragraph: `clawd <command> --help` and docs/reference.md show it. */
  details?: string;
  input: S;
  /** A check across fields, after each field passed its own (e.g. `after` needs the agent format). */
  check?(input: z.output<S>): void;
  http: HttpRoute;
  cli: CliSpec;
  mcp: McpSpec | NotForAgents;
  /** An input that works: shown in the skill and the reference, used by the table's own tests. */
  example: z.input<S>;
  /** The short text an agent reads, on the CLI and over MCP. */
  text(result: R, input: z.output<S>): string;
  /** An image to answer beside the text (MCP gives screenshots as pictures). */
  image?(result: R): { path: string; mimeType: string } | undefined;
  followUp?: FollowUp<R>;
  /** It changes a page or a tab: every call is recorded in the action log. */
  logged?: true;
  /**
   * The person's operation: its CLI command sends the person's key too (it may loosen the
   * person's rules, which an agent's token alone cannot). Never an MCP tool.
   */
  person?: true;
  /** It passes the gate first (it changes a tab, or the person may be asked about it). */
  gate?: GateSpec<z.output<S>>;
  /** How long a client waits for the answer (the server bounds the work; this is the client's net). */
  clientTimeoutMs?(input: z.output<S>): number;
  /** Progress a client shows while it waits, when the wait can be long (a browser starting). */
  progress?: string;
}

/** An operation with its result type fixed and its schema inferred: `operation<SnapshotResult>()({ … })`. */
export const operation =
  <R>() =>
  <S extends z.AnyZodObject>(spec: Operation<S, R>): Operation<S, R> =>
    spec;

export type InputOf<O> = O extends Operation<infer S, any> ? z.output<S> : never;
export type RawInputOf<O> = O extends Operation<infer S, any> ? z.input<S> : never;
export type ResultOf<O> = O extends Operation<any, infer R> ? R : never;
