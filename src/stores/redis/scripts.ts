/**
 * The Lua scripts of the Redis stores. Each check-and-change is one script, so it runs atomically on the
 * server; times come from the server's clock (`TIME`), so instances with skewed clocks agree. Every script
 * touches only keys of one hash slot (they share a `{tag}`), so the stores work on Redis Cluster.
 */

// Server time in integer ms, and the sweep that returns lapsed holds of one account to its balance (and
// to the key budgets they spent). Credit scripts take KEYS = [account hash, holds hash (id → amount),
// expiries zset (id → expiresAt), hold budgets hash (id → "key<TAB>window"), budgets hash
// (key → "window<TAB>spent": one counter per key, a counter of another window counts as 0)].
const CREDIT_PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function give_back(amount)
  if amount > 0 and redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('HINCRBY', KEYS[1], 'available', amount)
  end
end
local function spent_of(key, window)
  local counter = redis.call('HGET', KEYS[5], key)
  if not counter then return 0 end
  local w, spent = string.match(counter, '^([^\t]*)\t(%d+)$')
  if w ~= window then return 0 end
  return tonumber(spent)
end
local function budget_back(id, amount)
  local hold = redis.call('HGET', KEYS[4], id)
  if not hold then return end
  redis.call('HDEL', KEYS[4], id)
  if amount <= 0 then return end
  local key, window = string.match(hold, '^(.*)\t([^\t]*)$')
  local counter = redis.call('HGET', KEYS[5], key)
  if not counter then return end
  local w, spent = string.match(counter, '^([^\t]*)\t(%d+)$')
  if w ~= window then return end
  redis.call('HSET', KEYS[5], key, window .. '\t' .. string.format('%d', math.max(0, tonumber(spent) - amount)))
end
local function sweep(now)
  while true do
    local lapsed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 500)
    if #lapsed == 0 then return end
    local back = 0
    for _, id in ipairs(lapsed) do
      local amount = tonumber(redis.call('HGET', KEYS[2], id) or '0')
      back = back + amount
      budget_back(id, amount)
    end
    redis.call('HDEL', KEYS[2], unpack(lapsed))
    redis.call('ZREM', KEYS[3], unpack(lapsed))
    give_back(back)
  end
end
`;

/** Creates the account with ARGV[1] credits unless it exists. Returns 1 if created. */
const OPEN_ACCOUNT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'available', ARGV[1])
return 1
`;

/** Returns the available balance (after returning lapsed holds). */
const BALANCE = `${CREDIT_PRELUDE}
sweep(now_ms())
return tonumber(redis.call('HGET', KEYS[1], 'available') or '0')
`;

/** Adds ARGV[1] credits (creating the account). Returns the new balance, or -1 if it would pass 2^53 - 1. */
const GRANT = `${CREDIT_PRELUDE}
sweep(now_ms())
local current = tonumber(redis.call('HGET', KEYS[1], 'available') or '0')
local amount = tonumber(ARGV[1])
if current + amount > 9007199254740991 then return -1 end
return redis.call('HINCRBY', KEYS[1], 'available', amount)
`;

/**
 * Holds ARGV[2] credits under id ARGV[1] for ARGV[3] ms, spending key ARGV[4]'s budget (limit ARGV[5] in
 * window ARGV[6]) unless ARGV[4] is ''. Returns {1, expiresAt}, {0, available} when the balance cannot cover
 * it, or {2, spent} when the budget cannot. The id's uniqueness is checked before, by the caller.
 */
const RESERVE = `${CREDIT_PRELUDE}
local now = now_ms()
sweep(now)
local amount = tonumber(ARGV[2])
if amount > 0 then
  local available = tonumber(redis.call('HGET', KEYS[1], 'available') or '0')
  if available < amount then return {0, available} end
  if ARGV[4] ~= '' then
    local spent = spent_of(ARGV[4], ARGV[6])
    if spent + amount > tonumber(ARGV[5]) then return {2, spent} end
    redis.call('HSET', KEYS[5], ARGV[4], ARGV[6] .. '\t' .. string.format('%d', spent + amount))
    redis.call('HSET', KEYS[4], ARGV[1], ARGV[4] .. '\t' .. ARGV[6])
  end
  redis.call('HINCRBY', KEYS[1], 'available', -amount)
end
local expires = math.ceil(now + tonumber(ARGV[3]))
redis.call('HSET', KEYS[2], ARGV[1], amount)
redis.call('ZADD', KEYS[3], expires, ARGV[1])
return {1, expires}
`;

/**
 * Settles hold ARGV[1]: ARGV[2] = 'commit' spends min(ARGV[3], amount) (all if ARGV[3] is '') and returns
 * the rest; 'refund' returns everything. Returns 1 if this call settled it, 0 if no live hold exists.
 */
const SETTLE = `${CREDIT_PRELUDE}
sweep(now_ms())
local amount = redis.call('HGET', KEYS[2], ARGV[1])
if not amount then return 0 end
amount = tonumber(amount)
local spent = 0
if ARGV[2] == 'commit' then
  spent = amount
  if ARGV[3] ~= '' then spent = math.min(tonumber(ARGV[3]), amount) end
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
give_back(amount - spent)
budget_back(ARGV[1], amount - spent)
return 1
`;

/** Returns what key ARGV[1] spent in budget window ARGV[2] (after returning lapsed holds). */
const BUDGET_SPENT = `${CREDIT_PRELUDE}
sweep(now_ms())
return spent_of(ARGV[1], ARGV[2])
`;

/**
 * One GCRA step (same arithmetic as src/stores/gcra.ts). KEYS[1] holds the theoretical arrival time.
 * ARGV = limit, windowMs, cost. Returns {allowed, remaining, resetAt, retryAfterMs}.
 */
const GCRA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local eps = 1e-6
local interval = window / limit
local tat = now
local stored = redis.call('GET', KEYS[1])
if stored then tat = math.max(tonumber(stored), now) end
local function remaining(at)
  return math.max(0, math.floor((now + window - at) / interval + eps))
end
local new_tat = tat + cost * interval
local allow_at = new_tat - window
if allow_at - now > eps then
  return {0, remaining(tat), math.ceil(tat), math.max(1, math.ceil(allow_at - now - eps))}
end
if new_tat > now then
  redis.call('SET', KEYS[1], string.format('%.17g', new_tat), 'PX', math.ceil(new_tat - now))
end
return {1, remaining(new_tat), math.ceil(math.max(new_tat, now) - eps), 0}
`;

// Key store: KEYS = [records (hash → JSON), revoked (hash → ms), ids (id → hash), order zset, seq, account zset].
/** Stores a new key. ARGV = hash, id, JSON record. Returns 0 if the id is taken (the caller retries). */
const KEY_CREATE = `
if redis.call('HEXISTS', KEYS[3], ARGV[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[1])
local seq = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[4], seq, ARGV[2])
redis.call('ZADD', KEYS[6], seq, ARGV[2])
return 1
`;

/** Revokes key id ARGV[1] at ARGV[2] (keeping an earlier revocation time). Returns its hash, or false. */
const KEY_REVOKE = `
local hash = redis.call('HGET', KEYS[3], ARGV[1])
if not hash then return false end
redis.call('HSETNX', KEYS[2], hash, ARGV[2])
return hash
`;

/**
 * Returns {record JSON, revokedAt or '', budget JSON or ''} for each key id in the order zset KEYS[4],
 * oldest first; KEYS[5] is the budgets hash (hash → budget JSON).
 */
const KEY_LIST = `
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  local hash = redis.call('HGET', KEYS[3], id)
  if hash then
    local record = redis.call('HGET', KEYS[1], hash)
    if record then
      table.insert(out, record)
      table.insert(out, redis.call('HGET', KEYS[2], hash) or '')
      table.insert(out, redis.call('HGET', KEYS[5], hash) or '')
    end
  end
end
return out
`;

/**
 * Sets key id ARGV[1]'s budget to JSON ARGV[2] ('' removes it) in the budgets hash KEYS[4]. Returns
 * {hash, record JSON, revokedAt or ''}, or false for an unknown id.
 */
const KEY_SET_BUDGET = `
local hash = redis.call('HGET', KEYS[3], ARGV[1])
if not hash then return false end
if ARGV[2] == '' then redis.call('HDEL', KEYS[4], hash) else redis.call('HSET', KEYS[4], hash, ARGV[2]) end
return {hash, redis.call('HGET', KEYS[1], hash), redis.call('HGET', KEYS[2], hash) or ''}
`;

/** The scripts, as ioredis `defineCommand` definitions. */
/**
 * Claims an Idempotency-Key: returns the stored JSON ({fingerprint, response?}) when someone holds it;
 * otherwise stores ARGV[1] for ARGV[2] ms and returns false (nil). One script, so one claim wins.
 */
const IDEMPOTENCY_BEGIN = `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;

/** Drops a claim still in progress (no `response` field), never a completed response. */
const IDEMPOTENCY_ABANDON = `
local current = redis.call('GET', KEYS[1])
if current and not string.find(current, '"response":', 1, true) then redis.call('DEL', KEYS[1]) end
return 0
`;

export const SCRIPTS = {
  citewiseOpenAccount: { numberOfKeys: 1, lua: OPEN_ACCOUNT },
  citewiseBalance: { numberOfKeys: 5, lua: BALANCE },
  citewiseGrant: { numberOfKeys: 5, lua: GRANT },
  citewiseReserve: { numberOfKeys: 5, lua: RESERVE },
  citewiseSettle: { numberOfKeys: 5, lua: SETTLE },
  citewiseBudgetSpent: { numberOfKeys: 5, lua: BUDGET_SPENT },
  citewiseGcra: { numberOfKeys: 1, lua: GCRA },
  citewiseKeyCreate: { numberOfKeys: 6, lua: KEY_CREATE },
  citewiseKeyRevoke: { numberOfKeys: 3, lua: KEY_REVOKE },
  citewiseKeyList: { numberOfKeys: 5, lua: KEY_LIST, readOnly: true },
  citewiseKeySetBudget: { numberOfKeys: 4, lua: KEY_SET_BUDGET },
  citewiseIdempotencyBegin: { numberOfKeys: 1, lua: IDEMPOTENCY_BEGIN },
  citewiseIdempotencyAbandon: { numberOfKeys: 1, lua: IDEMPOTENCY_ABANDON },
} as const;

/** Name of a registered script. */
export type ScriptName = keyof typeof SCRIPTS;
