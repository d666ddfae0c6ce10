import * as z from 'zod';
import { builtinTool } from '../../protocol/tools';
import { zodValidator } from './inputValidation';
import { oneLine, type RuntimeTool } from './runtimeTool';

/**
 * `TodoWrite` (the agent's own task list, shown in the UI through its tool
 * rows) and `WebSearch`/`WebFetch`, which run on the API side as the Messages
 * API's server tools: nothing to execute here, and nothing to confine.
 */

const todoSchema = z.object({
  todos: z.array(
    z.object({
      content: z.string().min(1),
      status: z.enum(['pending', 'in_progress', 'completed']),
      activeForm: z.string().optional(),
    }),
  ),
});

const parseTodos = zodValidator('TodoWrite', todoSchema);

export function todoWriteTool(): RuntimeTool {
  return {
    ...builtinTool('TodoWrite'),
    definition: {
      name: 'TodoWrite',
      description: 'Replace your task list for this job. Use it for multi-step work: keep exactly one item in_progress and mark items completed as you finish them.',
      input_schema: z.toJSONSchema(todoSchema) as never,
    },
    summarizeInput: (input) => {
      const parsed = todoSchema.safeParse(input);
      if (!parsed.success) return '';
      const done = parsed.data.todos.filter((t) => t.status === 'completed').length;
      const current = parsed.data.todos.find((t) => t.status === 'in_progress');
      return oneLine(`${done}/${parsed.data.todos.length} done${current ? ` · ${current.activeForm ?? current.content}` : ''}`);
    },
    run: async (input) => {
      const lines = parseTodos(input).todos.map((t) => `${t.status === 'completed' ? '[x]' : t.status === 'in_progress' ? '[>]' : '[ ]'} ${t.content}`);
      return `Task list updated:\n${lines.join('\n')}`;
    },
  };
}

export function webSearchTool(): RuntimeTool {
  return {
    ...builtinTool('WebSearch'),
    definition: { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
    summarizeInput: (input) => oneLine(String((input as { query?: string } | null)?.query ?? '')),
  };
}

export function webFetchTool(): RuntimeTool {
  return {
    ...builtinTool('WebFetch'),
    definition: { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 5 },
    summarizeInput: (input) => oneLine(String((input as { url?: string } | null)?.url ?? '')),
  };
}
