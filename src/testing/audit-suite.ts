import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../stores/account-types.ts';
import { attempt, sleep } from './helpers.ts';

/**
 * The audit-log part of the account store suite (see `describeAccountStore`): entries are appended with
 * the store's time and an increasing `seq`, listed newest first with filters and pages, kept apart per
 * organization, never lost under concurrent appends, and removed only by the retention.
 */
export function describeAuditLog(open: () => Promise<AccountStore>): void {
  describe('audit log', () => {
    it('appends entries and lists them newest first, with every field', async () => {
      const store = await open();
      const before = Date.now();
      const full = {
        actor: 'ada@example.com',
        action: 'key_created',
        organizationId: 'org_a',
        target: 'key_1',
        ip: '127.0.0.1',
        detail: 'support bot, budget 500 credits a day',
      } as const;
      const first = await store.appendAudit(full);
      expect(first).toMatchObject(full);
      expect(first.at).toBeGreaterThanOrEqual(before - 1_000);
      const second = await store.appendAudit({
        actor: 'cli',
        action: 'credits_granted',
        organizationId: 'org_b',
      });
      expect(second.seq).toBeGreaterThan(first.seq);
      expect(second).toMatchObject({ target: null, ip: null, detail: null });
      const third = await store.appendAudit({ actor: 'nobody@example.com', action: 'sign_in_failed' });
      expect(third.organizationId).toBeNull();
      expect((await store.listAudit()).map((e) => e.seq)).toEqual([third.seq, second.seq, first.seq]);
      expect(await store.listAudit({ organizationId: 'org_a' })).toEqual([first]);
    });

    it('filters by action, actor, time, and pages by seq', async () => {
      const store = await open();
      for (let i = 0; i < 5; i++) {
        await store.appendAudit({
          actor: i % 2 ? 'cli' : 'ada@example.com',
          action: 'key_created',
          organizationId: 'org_a',
          target: `key_${i}`,
        });
      }
      await store.appendAudit({
        actor: 'cli',
        action: 'key_revoked',
        organizationId: 'org_a',
        target: 'key_0',
      });
      expect((await store.listAudit({ action: 'key_revoked' })).map((e) => e.target)).toEqual(['key_0']);
      expect((await store.listAudit({ actor: 'cli', action: 'key_created' })).map((e) => e.target)).toEqual([
        'key_3',
        'key_1',
      ]);
      const page = await store.listAudit({ organizationId: 'org_a', limit: 2 });
      expect(page.map((e) => e.target)).toEqual(['key_0', 'key_4']);
      const next = await store.listAudit({ organizationId: 'org_a', limit: 2, beforeSeq: page[1]!.seq });
      expect(next.map((e) => e.target)).toEqual(['key_3', 'key_2']);
      await sleep(20);
      const cut = Date.now();
      await sleep(20);
      await store.appendAudit({ actor: 'operator', action: 'operator_action', detail: 'maintenance on' });
      expect((await store.listAudit({ since: cut })).map((e) => e.action)).toEqual(['operator_action']);
      expect(await store.listAudit({ until: cut })).toHaveLength(6);
    });

    it('keeps every one of many concurrent appends, each with its own seq', async () => {
      const store = await open();
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          store.appendAudit({
            actor: 'cli',
            action: 'key_created',
            organizationId: 'org_c',
            target: `k${i}`,
          }),
        ),
      );
      const listed = await store.listAudit({ organizationId: 'org_c', limit: 100 });
      expect(listed).toHaveLength(40);
      expect(new Set(listed.map((e) => e.seq)).size).toBe(40);
      expect(new Set(listed.map((e) => e.target)).size).toBe(40);
    });

    it('removes only entries older than the retention', async () => {
      const store = await open();
      await store.appendAudit({ actor: 'cli', action: 'key_created', target: 'old' });
      await sleep(30);
      const cut = Date.now();
      await sleep(10);
      await store.appendAudit({ actor: 'cli', action: 'key_created', target: 'new' });
      expect(await store.pruneAudit(cut)).toBe(1);
      expect((await store.listAudit()).map((e) => e.target)).toEqual(['new']);
      expect(await store.pruneAudit(cut)).toBe(0);
    });

    it('refuses an entry without actor or action', async () => {
      const store = await open();
      await expect(attempt(() => store.appendAudit({ actor: '', action: 'sign_in' }))).rejects.toThrow(
        TypeError,
      );
      await expect(
        attempt(() => store.appendAudit({ actor: 'cli', action: undefined as unknown as string })),
      ).rejects.toThrow(TypeError);
      await expect(attempt(() => store.listAudit({ limit: 0 }))).rejects.toThrow(RangeError);
      expect(await store.listAudit()).toEqual([]);
    });
  });
}
