// The recipe a person's recording makes (extension/src/panel-recording.ts recipeOf): each field a
// parameter, its value a default only where the person kept it, never a password field's; the
// rest of the steps as done; and what it makes is a recipe clawd takes (shared/recipe-parse.ts).

import { describe, expect, it } from 'vitest';
import { recipeOf } from '../../extension/src/panel-recording';
import { recipeProblem } from '../../shared/recipe-parse';

const field = (name: string, password = false) => ({
  locator: { by: 'role' as const, role: 'textbox', name },
  ...(password ? { password: true as const } : {}),
});

describe('a recorded recipe', () => {
  it('makes each field a parameter, keeps a value only where the person said so, never a password', () => {
    const recipe = recipeOf([
      { do: 'goto', url: 'http://shop.test/' },
      { do: 'fill', element: field('Full name'), value: 'Ada' },
      { do: 'fill', element: field('City'), value: 'London', keep: true },
      { do: 'fill', element: field('Code', true), keep: true },
      { do: 'select', element: { locator: { by: 'label', label: 'Plan' } }, values: ['pro'], keep: true },
      { do: 'check', element: { locator: { by: 'label', label: 'News' } }, checked: true },
      { do: 'fill', element: { locator: { by: 'css', css: '#x' } }, value: 'y' },
      { do: 'press', key: 'Enter', element: field('Full name') },
      { do: 'click', element: { locator: { by: 'role', role: 'button', name: 'Next' } } },
    ]);
    expect(recipe.params).toEqual([
      { name: 'fullName', about: 'Full name' },
      { name: 'city', about: 'City', default: 'London' },
      { name: 'code', about: 'Code' },
      { name: 'plan', about: 'Plan', default: 'pro' },
      { name: 'field' },
    ]);
    expect(recipe.steps.map((s) => ('value' in s ? s.value : 'values' in s ? s.values : s.do))).toEqual([
      'goto',
      '{{param:fullName}}',
      '{{param:city}}',
      '{{param:code}}',
      ['{{param:plan}}'],
      'check',
      '{{param:field}}',
      'press',
      'click',
    ]);
    expect(JSON.stringify(recipe)).not.toContain('Ada');
    expect(JSON.stringify(recipe)).not.toContain('keep');
    expect(recipeProblem(recipe)).toBeNull();
  });
});
