import { describe, expect, it } from 'vitest';
import { openedPerTest } from './helpers.ts';
import type { AccountStore } from '../stores/account-types.ts';
import { describeAuditLog } from './audit-suite.ts';

/** Makes a fresh, empty account store for one test. The suite closes it after the test. */
export type MakeAccountStore = () => Promise<AccountStore> | AccountStore;

const HOUR = 3_600_000;

/**
 * Runs the {@link AccountStore} conformance suite (vitest) against `makeStore`: users, organizations,
 * memberships, invitations (once only, also under concurrency), sessions, key creators and settings.
 */
export function describeAccountStore(name: string, makeStore: MakeAccountStore): void {
  describe(`AccountStore conformance: ${name}`, () => {
    const open = openedPerTest(makeStore);

    it('creates users with unique, lower-cased emails and finds them', async () => {
      const store = await open();
      const user = await store.createUser({ email: ' Ada@Example.COM ', passwordHash: 'scrypt$x' });
      expect(user).toMatchObject({ email: 'ada@example.com', passwordHash: 'scrypt$x', operator: false });
      expect(await store.createUser({ email: 'ada@example.com', passwordHash: 'other' })).toBeNull();
      expect(await store.findUserByEmail('ADA@example.com')).toEqual(user);
      expect(await store.getUser(user!.id)).toEqual(user);
      expect(await store.findUserByEmail('nobody@example.com')).toBeNull();
      expect(await store.getUser('usr_unknown')).toBeNull();
    });

    it('changes passwords and the operator flag', async () => {
      const store = await open();
      const user = (await store.createUser({ email: 'a@example.com', passwordHash: 'one' }))!;
      expect(await store.hasOperator()).toBe(false);
      expect(await store.setPasswordHash(user.id, 'two')).toBe(true);
      expect(await store.setOperator(user.id, true)).toBe(true);
      expect(await store.getUser(user.id)).toMatchObject({ passwordHash: 'two', operator: true });
      expect(await store.hasOperator()).toBe(true);
      expect(await store.setPasswordHash('usr_unknown', 'x')).toBe(false);
      expect(await store.setOperator('usr_unknown', true)).toBe(false);
    });

    it('creates, lists, suspends and reactivates organizations', async () => {
      const store = await open();
      const a = await store.createOrganization({ name: 'Acme' });
      const b = await store.createOrganization({ name: 'Beta' });
      expect(a).toMatchObject({ name: 'Acme', suspendedAt: null });
      expect(a.id).not.toBe(b.id);
      expect((await store.listOrganizations()).map((o) => o.name)).toEqual(['Acme', 'Beta']);
      expect(await store.setSuspended(a.id, true)).toBe(true);
      expect((await store.getOrganization(a.id))?.suspendedAt).toEqual(expect.any(Number));
      expect(await store.suspendedOrganizationIds()).toEqual([a.id]);
      expect(await store.setSuspended(a.id, false)).toBe(true);
      expect(await store.suspendedOrganizationIds()).toEqual([]);
      expect(await store.setSuspended('org_unknown', true)).toBe(false);
      expect(await store.getOrganization('org_unknown')).toBeNull();
    });

    it('adds, changes, lists and removes members', async () => {
      const store = await open();
      const org = await store.createOrganization({ name: 'Acme' });
      const owner = (await store.createUser({ email: 'o@example.com', passwordHash: 'h' }))!;
      const member = (await store.createUser({ email: 'm@example.com', passwordHash: 'h' }))!;
      await store.putMembership({ organizationId: org.id, userId: owner.id, role: 'owner' });
      await store.putMembership({ organizationId: org.id, userId: member.id, role: 'member' });
      await store.putMembership({ organizationId: org.id, userId: member.id, role: 'admin' });
      const members = await store.listMembers(org.id);
      expect(members.map((m) => [m.email, m.role])).toEqual([
        ['o@example.com', 'owner'],
        ['m@example.com', 'admin'],
      ]);
      expect(await store.listUserOrganizations(member.id)).toEqual([
        expect.objectContaining({ organizationId: org.id, organizationName: 'Acme', role: 'admin' }),
      ]);
      expect(await store.removeMembership(org.id, member.id)).toBe(true);
      expect(await store.removeMembership(org.id, member.id)).toBe(false);
      expect(await store.getMembership(org.id, member.id)).toBeNull();
      await expect(
        Promise.resolve().then(() =>
          store.putMembership({ organizationId: org.id, userId: owner.id, role: 'king' as never }),
        ),
      ).rejects.toThrow(TypeError);
    });

    it('accepts an invitation once, keeping the higher role of an existing member', async () => {
      const store = await open();
      const org = await store.createOrganization({ name: 'Acme' });
      const owner = (await store.createUser({ email: 'o@example.com', passwordHash: 'h' }))!;
      const guest = (await store.createUser({ email: 'g@example.com', passwordHash: 'h' }))!;
      const { token, invitation } = await store.createInvitation({
        organizationId: org.id,
        role: 'member',
        createdBy: owner.id,
        expiresAt: Date.now() + HOUR,
      });
      expect(token.length).toBeGreaterThanOrEqual(40);
      expect(JSON.stringify(invitation)).not.toContain(token);
      expect(await store.findInvitation(token)).toEqual(invitation);
      expect(await store.listInvitations(org.id)).toEqual([invitation]);
      expect(await store.acceptInvitation(token, guest.id)).toMatchObject({
        role: 'member',
        userId: guest.id,
      });
      expect(await store.acceptInvitation(token, guest.id)).toBeNull();
      expect(await store.findInvitation(token)).toBeNull();
      expect(await store.listInvitations(org.id)).toEqual([]);

      await store.putMembership({ organizationId: org.id, userId: owner.id, role: 'owner' });
      const again = await store.createInvitation({
        organizationId: org.id,
        role: 'member',
        createdBy: owner.id,
        expiresAt: Date.now() + HOUR,
      });
      expect(await store.acceptInvitation(again.token, owner.id)).toMatchObject({ role: 'owner' });
    });

    it('lets exactly one of concurrent accepts win', async () => {
      const store = await open();
      const org = await store.createOrganization({ name: 'Acme' });
      const users = await Promise.all(
        [0, 1, 2, 3, 4].map((i) => store.createUser({ email: `u${i}@example.com`, passwordHash: 'h' })),
      );
      const { token } = await store.createInvitation({
        organizationId: org.id,
        role: 'admin',
        createdBy: users[0]!.id,
        expiresAt: Date.now() + HOUR,
      });
      const results = await Promise.all(users.map((u) => store.acceptInvitation(token, u!.id)));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(await store.listMembers(org.id)).toHaveLength(1);
    });

    it('refuses expired, unknown and malformed invitation tokens, and deletes pending ones', async () => {
      const store = await open();
      const org = await store.createOrganization({ name: 'Acme' });
      const expired = await store.createInvitation({
        organizationId: org.id,
        role: 'member',
        createdBy: 'usr_x',
        expiresAt: Date.now() - 1,
      });
      expect(await store.findInvitation(expired.token)).toBeNull();
      expect(await store.acceptInvitation(expired.token, 'usr_y')).toBeNull();
      expect(await store.findInvitation('not a token')).toBeNull();
      expect(await store.acceptInvitation('A'.repeat(43), 'usr_y')).toBeNull();
      const pending = await store.createInvitation({
        organizationId: org.id,
        role: 'member',
        createdBy: 'usr_x',
        expiresAt: Date.now() + HOUR,
      });
      expect(await store.deleteInvitation('org_other', pending.invitation.id)).toBe(false);
      expect(await store.deleteInvitation(org.id, pending.invitation.id)).toBe(true);
      expect(await store.findInvitation(pending.token)).toBeNull();
    });

    it('keeps sessions by token hash; ends one, or all of a user', async () => {
      const store = await open();
      const a = await store.createSession({ userId: 'usr_a', expiresAt: Date.now() + HOUR });
      const b = await store.createSession({ userId: 'usr_a', expiresAt: Date.now() + HOUR });
      const c = await store.createSession({ userId: 'usr_c', expiresAt: Date.now() + HOUR });
      const expired = await store.createSession({ userId: 'usr_c', expiresAt: Date.now() - 1 });
      expect(a.token).not.toBe(b.token);
      expect(JSON.stringify(a.session)).not.toContain(a.token);
      expect(await store.findSession(a.token)).toEqual(a.session);
      expect(await store.findSession(expired.token)).toBeNull();
      expect(await store.findSession('garbage')).toBeNull();
      expect(await store.deleteSession(a.token)).toBe(true);
      expect(await store.deleteSession(a.token)).toBe(false);
      expect(await store.findSession(a.token)).toBeNull();
      await store.createSession({ userId: 'usr_a', expiresAt: Date.now() + HOUR });
      expect(await store.deleteUserSessions('usr_a')).toBe(2);
      expect(await store.findSession(b.token)).toBeNull();
      expect(await store.findSession(c.token)).toEqual(c.session);
    });

    it('remembers who created a key, per organization', async () => {
      const store = await open();
      await store.recordKeyCreator({ keyId: 'key_1', organizationId: 'org_a', userId: 'usr_1' });
      await store.recordKeyCreator({ keyId: 'key_2', organizationId: 'org_a', userId: 'usr_2' });
      await store.recordKeyCreator({ keyId: 'key_3', organizationId: 'org_b', userId: 'usr_1' });
      expect(await store.keyCreators('org_a')).toEqual(
        new Map([
          ['key_1', 'usr_1'],
          ['key_2', 'usr_2'],
        ]),
      );
      expect(await store.keyCreators('org_none')).toEqual(new Map());
    });

    it('sets, replaces and removes settings', async () => {
      const store = await open();
      expect(await store.getSetting('maintenance')).toBeNull();
      await store.setSetting('maintenance', 'on');
      await store.setSetting('maintenance', 'off');
      expect(await store.getSetting('maintenance')).toBe('off');
      await store.setSetting('maintenance', null);
      expect(await store.getSetting('maintenance')).toBeNull();
    });
    describeAuditLog(open);
  });
}
