import { describe, expect, it } from 'vitest';
import {
  API_KEY_RANDOM_LENGTH,
  generateApiKey,
  hashApiKey,
  keyPrefix,
  looksLikeApiKey,
  newKeyId,
} from '../../src/stores/keys.ts';

describe('key helpers', () => {
  it('generates cw_ + 40 base62 characters', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^cw_[0-9A-Za-z]{40}$/);
      expect(looksLikeApiKey(key)).toBe(true);
    }
  });

  it('draws characters uniformly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const keys = 3_000;
    for (let i = 0; i < keys; i++) {
      for (const char of generateApiKey().slice(3)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (keys * API_KEY_RANDOM_LENGTH) / 62;
    // ±15 % is > 10 standard deviations at this sample size: a biased generator (e.g. plain byte % 62,
    // which favours the first 8 characters by ~25 %) fails, a fair one never does.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(expected * 0.85);
      expect(count).toBeLessThan(expected * 1.15);
    }
  });

  it('hashes with SHA-256 (hex)', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('derives a short display prefix and a key id', () => {
    const key = generateApiKey();
    expect(keyPrefix(key)).toBe(key.slice(0, 8));
    expect(newKeyId()).toMatch(/^key_[0-9a-f]{12}$/);
    expect(newKeyId()).not.toBe(newKeyId());
  });

  it('rejects malformed keys cheaply', () => {
    const key = generateApiKey();
    for (const bad of [
      '',
      'cw_',
      key.slice(0, -1),
      `${key}0`,
      `AS_${key.slice(3)}`,
      key.replace(/.$/, '-'),
      42,
      null,
    ]) {
      expect(looksLikeApiKey(bad)).toBe(false);
    }
  });
});
