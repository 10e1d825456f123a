/**
 * Invitations stay in the hands of the people who may invite: an invitation link is only as good as its
 * creator's place in the organization. Removing a member cancels the pending invitations they created (or
 * they could come back through one of them), and a link is honoured only while its creator is still an
 * owner or admin there (an owner, for an owner invitation), which also covers an invitation created at the
 * moment its creator was removed.
 */
import type { AccountStore, InvitationRecord, Role } from '../stores/account-types.ts';

/** Whether a member with `role` may invite to `invited` (owners and admins invite; only owners invite owners). */
export function mayInvite(role: Role | undefined, invited: Role): boolean {
  if (invited === 'owner') return role === 'owner';
  return role === 'owner' || role === 'admin';
}

/** Cancels the pending invitations `userId` created in the organization; returns how many. */
export async function cancelInvitationsBy(
  accounts: AccountStore,
  organizationId: string,
  userId: string,
): Promise<number> {
  const theirs = (await accounts.listInvitations(organizationId)).filter((i) => i.createdBy === userId);
  const cancelled = await Promise.all(theirs.map((i) => accounts.deleteInvitation(organizationId, i.id)));
  return cancelled.filter(Boolean).length;
}

/**
 * The pending invitation of a raw token, if its creator may still invite to its role; `null` otherwise (an
 * invitation whose creator may not is deleted on the way).
 */
export async function honouredInvitation(
  accounts: AccountStore,
  token: string,
): Promise<InvitationRecord | null> {
  const invitation = await accounts.findInvitation(token);
  if (!invitation) return null;
  const creator = await accounts.getMembership(invitation.organizationId, invitation.createdBy);
  if (mayInvite(creator?.role, invitation.role)) return invitation;
  await accounts.deleteInvitation(invitation.organizationId, invitation.id);
  return null;
}
