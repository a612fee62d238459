// The `aria` format prints Chromium's accessibility tree; Chromium 150 and 156 report the same
// page with different names and extra nodes, and the format must read the same on both.
import { describe, expect, it } from 'vitest';
import { renderAxTree, type AxNode } from '../../relay/agent/snapshots/ax-tree-engine';

const node = (
  nodeId: string,
  role: string,
  name: string | undefined,
  childIds: string[] = [],
  ignored = false,
): AxNode => ({
  nodeId,
  childIds,
  ignored,
  role: { value: role },
  ...(name === undefined ? {} : { name: { value: name } }),
});

/** A label with a text box, as each version reports it (156 trims the name, 150 keeps the label's space). */
function labelledTextbox(textboxName: string): AxNode[] {
  // Listed breadth first, as getFullAXTree does; an ignored wrapper sits between root and label.
  const nodes = [
    node('1', 'RootWebArea', 'agent form', ['2']),
    node('2', 'none', undefined, ['3'], true),
    node('3', 'LabelText', '', ['4', '5']),
    node('4', 'StaticText', 'Name ', ['6']),
    node('5', 'textbox', textboxName),
    node('6', 'InlineTextBox', 'Name '),
  ];
  for (const n of nodes)
    for (const child of n.childIds ?? []) nodes.find((c) => c.nodeId === child)!.parentId = n.nodeId;
  return nodes;
}

describe('the aria format', () => {
  it('reads the same on Chromium 150 and 156: names trimmed and squashed, inline text boxes and ignored nodes left out', () => {
    const expected = [
      '- RootWebArea "agent form"',
      '  - LabelText',
      '    - StaticText "Name"',
      '    - textbox "Name"',
    ].join('\n');
    expect(renderAxTree(labelledTextbox('Name'))).toBe(expected);
    expect(renderAxTree(labelledTextbox('Name '))).toBe(expected);
    expect(renderAxTree(labelledTextbox('  Name \n '))).toBe(expected);
  });

  it('nests children under their parent in document order, whatever order the nodes come in', () => {
    const nodes = labelledTextbox('Name').reverse();
    expect(renderAxTree(nodes).split('\n')[0]).toBe('- RootWebArea "agent form"');
    expect(renderAxTree(nodes).split('\n')[3]).toBe('    - textbox "Name"');
  });

  it('stops at the line limit', () => {
    expect(renderAxTree(labelledTextbox('Name'), 2).split('\n')).toHaveLength(2);
  });
});
