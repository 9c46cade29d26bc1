import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import { resolveParameters, titleFrom } from '../domain/conversation';
import { delegateArgsSchema } from '../domain/project-conversation';
import { DELEGATE_TOOL, type DelegationStart } from '../domain/runs/project-turn';
import type { Step, TurnEvent } from '../domain/turn-events';
import { TurnFailure } from '../domain/runs/turn';
import type { TranscriptToolCall, TurnRef } from '../domain/turn-transcript';
import { notReady, openTurn, versionInForce } from '../turns/open';
import { type ToolCallResult, upsert } from './tool-call';
import { loadTurnContext } from './turn-context';

interface DelegationDeps {
  db: Db;
  repos: Repositories;
  /** The most turns a workspace may run at once (`WORKSPACE_RUNNING_TURNS_MAX`): a member's turn counts too. */
  maxRunningTurns: number;
}

type Child = Extract<DelegationStart, { child: unknown }>['child'];

/** What the manager's turn shows while a member works: one `task` step per delegation. */
function taskStep(call: TranscriptToolCall, who: string, status: Step['status']): Step {
  const task = typeof call.args.task === 'string' ? titleFrom(call.args.task) : undefined;
  return { id: call.id, label: `Delegating to ${who}${task ? `: ${task}` : ''}`, kind: 'task', status };
}

/**
 * The manager's delegations, each in two activities around the member's turn (a child
 * workflow): `startDelegation` checks the call against the project as it is now and opens the
 * member's turn; `finishDelegation` reads how it ended and hands the answer back to the manager.
 * The caller sees the delegation as a `delegate` tool event pair and a `task` step
 * (`active` → `done` | `error`), plus a `file` event for each file the member wrote.
 */
export function createDelegationActivities(deps: DelegationDeps) {
  const { repos, db } = deps;

  /** Marks the step and writes `before` the progress and a `tool` end after it; a repeated end writes nothing. */
  async function endStep(turnId: string, step: Step, ok: boolean, before: TurnEvent[] = []): Promise<void> {
    const turn = await repos.turns.get({ turnId });
    if (turn?.steps.some((s) => s.id === step.id && s.status !== 'active')) return;
    await repos.turns.changeSteps({
      turnId,
      change: (steps) => upsert(steps, { ...step, status: ok ? 'done' : 'error' }),
      before,
      after: [{ type: 'tool', name: DELEGATE_TOOL, state: 'end', ok }],
    });
  }

  return {
    /**
     * Checks a manager's tool call and opens the member's turn: the member must be in the project
     * now (a member removed mid-conversation gets nothing), ready (its required values supplied
     * on the agent), given its required parameters (the conversation's values of the names it
     * declares), and the workspace must have credits. The member's conversation is new, belongs
     * to the project (so its files land in the project's file space) and is pinned to the version
     * in force (production for a deployed freelancer, else the latest), as triggers pin. Anything
     * wrong is a failed tool call the manager sees, never a failed turn. Idempotent per call.
     */
    async startDelegation({ turnId, call, reserve }: TurnRef & { call: TranscriptToolCall; /** Credits the member's turn reserves. */ reserve: number }): Promise<DelegationStart> {
      const context = await loadTurnContext(repos, turnId);
      if (context.kind !== 'manager') throw ApplicationFailure.nonRetryable(`turn ${turnId} is not a manager's turn`, TurnFailure.turnMissing);
      const { project, conversation, turn } = context;
      const args = call.name === DELEGATE_TOOL ? delegateArgsSchema.safeParse(call.args) : undefined;
      const member = args?.success ? project.agents.find((m) => m.agentId === args.data.agentId) : undefined;
      const step = taskStep(call, member?.name ?? (typeof call.args.agentId === 'string' ? call.args.agentId : 'an agent'), 'active');
      // A retried attempt (the worker died mid-call) does not announce the call twice.
      if (!turn.steps.some((s) => s.id === step.id)) {
        await repos.turns.changeSteps({
          turnId,
          change: (steps) => upsert(steps, step),
          before: [{ type: 'tool', name: DELEGATE_TOOL, state: 'start' }],
        });
      }
      const refuse = async (content: string): Promise<DelegationStart> => {
        await endStep(turnId, step, false);
        return { result: { ok: false, content } };
      };
      if (!args) return refuse(`there is no tool named ${call.name}; the manager's one tool is ${DELEGATE_TOOL}`);
      if (!args.success) return refuse(`bad arguments for ${DELEGATE_TOOL}: ${args.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      const { agentId, task } = args.data;
      const outcome = await db.transaction(async (trx): Promise<{ child: Child } | { problem: string }> => {
        const again = await repos.conversations.ofDelegation({ parentTurnId: turnId, callId: call.id }, trx);
        const already = again && (await repos.turns.firstOf({ conversationId: again.id }, trx));
        if (again && already) return { child: { turnId: already, conversationId: again.id, agentId, name: member?.name ?? agentId } };
        // Read under a share lock: a member removed now either waits for this delegation or is not found.
        const isMember = await trx('project_members').where({ project_id: project.id, agent_id: agentId }).forShare().first();
        if (!member || !isMember) {
          const names = project.agents.filter((m) => m.agentId !== agentId).map((m) => `${m.name} (${m.agentId})`);
          return { problem: `agent ${agentId} is not a member of this project; ${names.length ? `its members are ${names.join(', ')}` : 'it has no members: answer on your own'}` };
        }
        const inForce = await versionInForce(repos, { workspaceId: turn.workspace_id, agentId }, trx);
        if (!inForce) return { problem: `agent ${agentId} no longer exists` };
        const missing = await notReady(repos, { agentId, config: inForce.config }, trx);
        if (missing) return { problem: `${member.name} is not ready (${missing})` };
        // The conversation's values of the parameters the member declares; the rest are not its business.
        const given = Object.fromEntries(Object.entries(conversation.parameters).filter(([k]) => inForce.config.parameters.some((p) => p.name === k)));
        const params = resolveParameters(inForce.config.parameters, given);
        if (!params.ok) return { problem: `${member.name} needs parameter ${params.name}, which ${params.problem}` };
        const create = () =>
          repos.conversations.create(
            {
              workspaceId: turn.workspace_id,
              agentId,
              version: inForce.version,
              parameters: params.values,
              delegation: { projectId: project.id, parentTurnId: turnId, callId: call.id },
            },
            trx,
          );
        const opened = await openTurn(
          repos,
          { workspaceId: turn.workspace_id, agentId, conversation: create, reserve, maxRunningTurns: deps.maxRunningTurns, message: task },
          trx,
        );
        // Refused (no credits, the workspace's running-turns limit): the manager reads why and answers without the member.
        if ('refused' in opened) return { problem: `${member.name} cannot start now: ${opened.message}` };
        return { child: { turnId: opened.turnId, conversationId: opened.conversation.id, agentId, name: member.name } };
      });
      if ('problem' in outcome) return refuse(outcome.problem);
      return outcome;
    },

    /** Reads how the member's turn ended and gives the manager its answer (or why there is none). */
    async finishDelegation({ turnId, call, child }: TurnRef & { call: TranscriptToolCall; child: Child }): Promise<ToolCallResult> {
      const events = await repos.turns.eventsOfTypes({ turnId: child.turnId, types: ['file', 'done', 'error'] });
      const end = events.findLast((e) => e.type === 'done' || e.type === 'error');
      const files = [...new Set(events.flatMap((e) => (e.type === 'file' ? [e.path] : [])))];
      const ok = end?.type === 'done';
      await endStep(turnId, taskStep(call, child.name, 'active'), ok, files.map((path) => ({ type: 'file', path })));
      if (end?.type === 'done') return { ok: true, content: end.reply };
      const why = end?.type === 'error' ? end.message : 'its turn did not finish';
      return { ok: false, content: `${child.name} could not do the task: ${why}` };
    },
  };
}
export type DelegationActivities = ReturnType<typeof createDelegationActivities>;
