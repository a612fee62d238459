// Runs a recipe (shared/recipe.ts) without a model: each step is an operation of the table,
// called through this process's invoker as the agent's own call is — the gate (policy, the
// person's asks, their hands first), secrets put in, the action log, the trace — with the step's
// elements found by their saved locators (AgentCall.recipeElements) instead of a snapshot's refs.
// The first step that fails, or whose expected message does not come, stops the run: the answer
// names it, what it expected, and the page as it is then (a snapshot with refs to go on by hand).

import type { LocatedElement } from '../../shared/element-locator';
import { VALUE_MARK, type RecipeStep, type SavedRecipe } from '../../shared/recipe';
import type { AgentCall } from '../agent/agent-calls';
import { locatorWords } from '../../shared/element-locator';
import type { RecipeStore } from '../agent/export/recipe-store';
import { callerSignal } from '../call-notes';
import { ClawdError, isClawdError } from '../errors';
import type { Operation } from '../operations/operation';
import { operationNamed, parseOperationInput } from '../operations/operation-table';
import type { RecipeRunResult, RecipeStepDone, RunRecipeRequest } from '../operations/recipe-operations';

/** Runs one operation as an agent's call, with a step's elements by ref. */
export type StepInvoke = (
  operation: Operation,
  profile: string,
  input: Record<string, unknown>,
  recipeElements: ReadonlyMap<string, LocatedElement>,
) => Promise<unknown>;

/** How long a step's action, and a wait for an expected message, may take. */
const STEP_MS = 15_000;
/** How much of the page a stopped run shows. */
const PAGE_CHARS = 4_000;

/** One step as an operation: its name, its input, and the elements its refs stand for. */
interface StepCall {
  operation: string;
  input: Record<string, unknown>;
  elements?: LocatedElement[];
}

export class RecipeRunner {
  constructor(
    private readonly store: RecipeStore,
    private readonly invoke: StepInvoke,
  ) {}

  async run(call: AgentCall, request: RunRecipeRequest): Promise<RecipeRunResult> {
    const recipe = await this.store.load(request.name);
    const params = paramsOf(recipe, request.params);
    const done: RecipeStepDone[] = [];
    let targetId = call.targetId;
    for (const [index, step] of recipe.steps.entries()) {
      if (step.do === 'note') continue;
      let did = `step ${index + 1}`;
      try {
        did = stepWords(step, params);
        // The caller went away (its request closed, its MCP call cancelled): no step after that.
        if (callerSignal()?.aborted) throw new ClawdError('caller_gone', 'the caller went away: the run stopped here');
        if (step.do === 'expect' && step.title !== undefined) await this.#title(call, targetId, step.title);
        else {
          const answer = (await this.#step(call, stepCall(step, params), targetId)) as { targetId?: string };
          targetId = answer.targetId ?? targetId;
        }
        done.push({ step: index + 1, did });
      } catch (error) {
        return {
          name: recipe.name,
          ok: false,
          targetId,
          done,
          stopped: await this.#stopped(call, targetId, index, did, step, error),
        };
      }
    }
    return { name: recipe.name, ok: true, targetId, done };
  }

  /** The tab's title now (the tabs list says it), as the step before left it. */
  async #title(call: AgentCall, targetId: string | undefined, title: string): Promise<void> {
    const operation = operationNamed('tabs');
    const input = parseOperationInput(operation, {}, 'json');
    const listed = (await this.invoke(operation, call.profile, input, new Map())) as {
      tabs: Array<{ targetId: string; title: string }>;
    };
    const tab =
      listed.tabs.find((t) => t.targetId === targetId) ?? (targetId === undefined ? listed.tabs[0] : undefined);
    if (tab?.title !== title)
      throw expected(`the title ${JSON.stringify(title)}`, `it is ${JSON.stringify(tab?.title ?? '')}`);
  }

  #step(call: AgentCall, step: StepCall, targetId: string | undefined): Promise<unknown> {
    const operation = operationNamed(step.operation);
    const elements = new Map((step.elements ?? []).map((element, i) => [`e${i + 1}`, element] as const));
    const takes = (field: string) => field in operation.input.shape;
    const raw = {
      ...step.input,
      ...(targetId !== undefined && takes('targetId') ? { targetId } : {}),
      ...(call.session !== undefined && takes('session') ? { session: call.session } : {}),
    };
    return this.invoke(operation, call.profile, parseOperationInput(operation, raw, 'json'), elements);
  }

  async #stopped(
    call: AgentCall,
    targetId: string | undefined,
    index: number,
    did: string,
    step: RecipeStep,
    error: unknown,
  ): Promise<NonNullable<RecipeRunResult['stopped']>> {
    const code = isClawdError(error) ? error.code : 'internal';
    const why = error instanceof ExpectedOther ? error.message : ((error as Error)?.message ?? String(error));
    const view = await this.invoke(
      operationNamed('snapshot'),
      call.profile,
      parseOperationInput(
        operationNamed('snapshot'),
        { ...(targetId ? { targetId } : {}), maxChars: PAGE_CHARS },
        'json',
      ),
      new Map(),
    ).catch(() => undefined);
    const page = (view as { snapshot?: string } | undefined)?.snapshot;
    return {
      step: index + 1,
      did,
      code: error instanceof ExpectedOther ? 'outcome_differs' : code,
      error: why,
      ...(step.do === 'expect' ? { expected: error instanceof ExpectedOther ? error.expected : did } : {}),
      ...('element' in step && step.element && code === 'ref_stale'
        ? { expected: locatorWords(step.element.locator) }
        : {}),
      ...(page ? { page } : {}),
    };
  }
}

class ExpectedOther extends Error {
  constructor(
    readonly expected: string,
    message: string,
  ) {
    super(message);
  }
}
const expected = (what: string, but: string) => new ExpectedOther(what, `expected ${what}, but ${but}`);

/** The run's parameters: the recipe's defaults, then NAME=VALUE each; one with no value is refused. */
function paramsOf(recipe: SavedRecipe, given: string[]): Record<string, string> {
  const params: Record<string, string | undefined> = Object.fromEntries(recipe.params.map((p) => [p.name, p.default]));
  for (const pair of given) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at);
    if (!Object.hasOwn(params, name))
      throw new ClawdError(
        'bad_request',
        `recipe ${recipe.name} has no parameter ${name}: its are ${Object.keys(params).join(', ') || 'none'}`,
      );
    params[name] = pair.slice(at + 1);
  }
  const missing = Object.keys(params).filter((name) => params[name] === undefined);
  if (missing.length > 0)
    throw new ClawdError(
      'bad_request',
      `recipe ${recipe.name} needs ${missing.map((m) => `${m}=VALUE`).join(' ')} (no default)`,
    );
  return params as Record<string, string>;
}

/** A value with its parameters put in; its secrets' marks stay, for the call to put in as an agent's. */
function filled(template: string, params: Record<string, string>): string {
  return template.replace(VALUE_MARK, (mark, kind: string, name: string) =>
    kind === 'param' ? (params[name] ?? '') : mark,
  );
}

function stepCall(step: RecipeStep, params: Record<string, string>): StepCall {
  const act = (kind: string, fields: Record<string, unknown>, elements?: LocatedElement[]): StepCall => ({
    operation: kind,
    input: { kind, snapshot: 'none', timeoutMs: STEP_MS, ...fields },
    ...(elements ? { elements } : {}),
  });
  switch (step.do) {
    case 'goto':
      return { operation: 'navigate', input: { url: step.url, snapshot: 'none', timeoutMs: STEP_MS } };
    case 'newPage':
      return { operation: 'tabOpen', input: step.url ? { url: step.url } : {} };
    case 'click':
    case 'hover':
    case 'focus':
    case 'scrollIntoView':
      return act(step.do, { ref: 'e1' }, [step.element]);
    case 'fill':
      return act('type', { ref: 'e1', text: filled(step.value, params) }, [step.element]);
    case 'check':
      return act('fill', { fields: [{ ref: 'e1', value: step.checked }] }, [step.element]);
    case 'select':
      return act('select', { ref: 'e1', values: step.values.map((v) => filled(v, params)) }, [step.element]);
    case 'press':
      return step.element
        ? act('press', { key: step.key, ref: 'e1' }, [step.element])
        : act('press', { key: step.key });
    case 'drag':
      return act('drag', { startRef: 'e1', endRef: 'e2' }, [step.element, step.onto]);
    case 'expect':
      return act('wait', { text: filled(step.text ?? '', params) });
    case 'note':
      throw new Error('a note is no step');
  }
}

/** A step in a few words, its parameters put in (a secret stays its mark). */
function stepWords(step: RecipeStep, params: Record<string, string>): string {
  switch (step.do) {
    case 'goto':
      return `go to ${step.url}`;
    case 'newPage':
      return `open a tab${step.url ? ` at ${step.url}` : ''}`;
    case 'fill':
      return `fill ${locatorWords(step.element.locator)} with ${JSON.stringify(filled(step.value, params))}`;
    case 'check':
      return `${step.checked ? 'check' : 'uncheck'} ${locatorWords(step.element.locator)}`;
    case 'select':
      return `choose ${step.values.map((v) => JSON.stringify(filled(v, params))).join(', ')} in ${locatorWords(step.element.locator)}`;
    case 'press':
      return `press ${step.key}${step.element ? ` in ${locatorWords(step.element.locator)}` : ''}`;
    case 'drag':
      return `drag ${locatorWords(step.element.locator)} onto ${locatorWords(step.onto.locator)}`;
    case 'expect':
      return step.title !== undefined
        ? `expect the title ${JSON.stringify(step.title)}`
        : `expect ${JSON.stringify(filled(step.text ?? '', params))}`;
    case 'note':
      return step.text;
    default:
      return `${step.do} ${locatorWords(step.element.locator)}`;
  }
}
