import { roleAllows, type Actor } from './roles';

/**
 * Who may use a conversation through the workspace API (docs/security.md: Roles) — the one rule,
 * applied by services/conversation-access.ts to every route that names a conversation or a turn
 * (and, as the same condition in SQL, `readableFilter`, to the workspace-wide search):
 *
 * - reading (the conversation, its messages, its turns' events): `reviewer` and above read every
 *   conversation; a `viewer` reads only the project (teammate) conversations they started, and
 *   the conversations those delegated to the project's members;
 * - changing it (ask, end, cancel a turn, file links): `builder` and above any conversation; a
 *   `viewer` or `reviewer` only the project conversations they started (and their delegations).
 *
 * `startedByCaller`: the conversation, or the one that delegated to it, was started by this caller.
 */
export type ConversationUse = 'read' | 'write';

export function mayUseAnyConversation(actor: Actor, use: ConversationUse): boolean {
  return roleAllows(actor.role, use === 'read' ? 'reviewer' : 'builder');
}

export function mayUseConversation(actor: Actor, use: ConversationUse, conversation: { inProject: boolean; startedByCaller: boolean }): boolean {
  return mayUseAnyConversation(actor, use) || (conversation.inProject && conversation.startedByCaller);
}
