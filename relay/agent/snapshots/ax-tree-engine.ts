// The `aria` snapshot: the accessibility tree as Chromium itself has it
// (Accessibility.getFullAXTree), indented in document order. For debugging and comparison; it
// hands out no refs, so the tab's earlier refs stay as they were. Chromium versions report the
// tree a little differently (150 keeps a label's trailing space in a name, "Name "), so names
// are trimmed and squashed and nodes that only repeat their parent's text (InlineTextBox) or
// that Chromium marks ignored are left out: the same page reads the same on every version.

import type { Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import { seconds, within } from '../../time-limit';
import { SNAPSHOT_TIMEOUT_MS, type SnapshotRequest } from '../../operations/page-operations';
import type { EngineSnapshot, SnapshotEngine } from './snapshot-engine';

export interface AxNode {
  nodeId: string;
  parentId?: string;
  childIds?: string[];
  ignored: boolean;
  role?: { value?: unknown };
  name?: { value?: unknown };
}

/** Lines shown when the request sets no limit. */
const DEFAULT_LIMIT = 2_000;

/** Roles that repeat text already shown by their parent, one box per line of layout. */
const DROPPED_ROLES = new Set(['InlineTextBox']);

const squash = (value: unknown) => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '');

/** The tree as indented lines, depth first from the root; ignored nodes give their place to their children. */
export function renderAxTree(nodes: AxNode[], limit = DEFAULT_LIMIT): string {
  const byId = new Map(nodes.map((node) => [node.nodeId, node]));
  const roots = nodes.filter((node) => node.parentId === undefined || !byId.has(node.parentId));
  const lines: string[] = [];
  // An explicit stack: real pages nest deeper than a comfortable recursion.
  const stack: Array<{ node: AxNode; depth: number }> = roots.reverse().map((node) => ({ node, depth: 0 }));
  const seen = new Set<string>();
  while (stack.length > 0 && lines.length < limit) {
    const { node, depth } = stack.pop()!;
    if (seen.has(node.nodeId)) continue;
    seen.add(node.nodeId);
    const role = typeof node.role?.value === 'string' ? node.role.value : 'unknown';
    if (DROPPED_ROLES.has(role)) continue;
    const shown = !node.ignored;
    if (shown) {
      const name = squash(node.name?.value);
      lines.push(`${'  '.repeat(depth)}- ${role}${name ? ` ${JSON.stringify(name)}` : ''}`);
    }
    const children = (node.childIds ?? [])
      .map((id) => byId.get(id))
      .filter((child): child is AxNode => child !== undefined);
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, depth: shown ? depth + 1 : depth });
  }
  return lines.join('\n');
}

export class AxTreeEngine implements SnapshotEngine {
  async take(page: Page, request: SnapshotRequest): Promise<EngineSnapshot> {
    const session = await page.context().newCDPSession(page);
    try {
      // A busy page can keep the accessibility tree waiting as long as it likes.
      const asked = session.send('Accessibility.getFullAXTree');
      const { nodes } = (await within(
        asked,
        SNAPSHOT_TIMEOUT_MS,
        () =>
          new ClawdError(
            'action_timeout',
            `snapshot: the page did not give its accessibility tree within ${seconds(SNAPSHOT_TIMEOUT_MS)}`,
          ),
      )) as { nodes: AxNode[] };
      return { text: renderAxTree(nodes, request.limit ?? DEFAULT_LIMIT), refs: undefined };
    } finally {
      await session.detach().catch(() => {});
    }
  }
}
