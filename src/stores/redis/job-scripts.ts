/**
 * The Lua scripts of the Redis job queue: each change of a job (and the event it logs) is one script, run
 * atomically on the server, with the server's clock. Keys (under the queue's namespace `N`):
 * `N job:<id>` hash of the record, `N events:<id>` list of events (JSON), `N queued` and `N running` hashes
 * account → count, `N idem` hash `account\nkey` → id, `N acct:<account>` zset of ids by creation,
 * `N pending` zset of queued ids by creation, `N ended` zset of unfinalized ended ids by end.
 */

const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- data is JSON text, kept as it is (a decode and encode in Lua would turn [] into {}).
local function append(job, events, kind, data, now)
  local id = redis.call('HINCRBY', job, 'last_event', 1)
  redis.call('RPUSH', events,
    '{"id":' .. id .. ',"type":' .. cjson.encode(kind) .. ',"data":' .. data .. ',"at":' .. string.format('%d', now) .. '}')
  return id
end
`;

/**
 * Enqueue. KEYS: job, events, queued, idem, acct, pending. ARGV: id, account, keyId, input, idemKey, fingerprint,
 * maxQueued (-1: none). Returns {'created'|'exists'|'full', id}.
 */
export const ENQUEUE = `${PRELUDE}
if ARGV[5] ~= '' then
  local existing = redis.call('HGET', KEYS[4], ARGV[2] .. '\\n' .. ARGV[5])
  if existing then return {'exists', existing} end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('a job with this id exists') end
local max = tonumber(ARGV[7])
if max >= 0 and tonumber(redis.call('HGET', KEYS[3], ARGV[2]) or '0') >= max then return {'full', ''} end
local now = now_ms()
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'account', ARGV[2], 'key_id', ARGV[3], 'status', 'queued',
  'input', ARGV[4], 'created_at', now, 'attempts', 0, 'credits_used', 0, 'idempotency_key', ARGV[5],
  'fingerprint', ARGV[6], 'finalized', 0, 'lease_until', 0, 'last_event', 0)
redis.call('HINCRBY', KEYS[3], ARGV[2], 1)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[4], ARGV[2] .. '\\n' .. ARGV[5], ARGV[1]) end
redis.call('ZADD', KEYS[5], now, ARGV[1])
redis.call('ZADD', KEYS[6], now, ARGV[1])
append(KEYS[1], KEYS[2], 'status', '{"status":"queued"}', now)
return {'created', ARGV[1]}
`;

/**
 * Claim (the queue delivered this job). KEYS: job, events, queued, running, pending. ARGV: token, leaseMs,
 * cap (0: none). Returns {'ok'} | {'ended'} | {'gone'} | {'leased', until} | {'cap'}.
 */
export const CLAIM = `${PRELUDE}
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'gone'} end
if status ~= 'queued' and status ~= 'running' then return {'ended'} end
local now = now_ms()
local account = redis.call('HGET', KEYS[1], 'account')
if status == 'running' then
  local lease_until = tonumber(redis.call('HGET', KEYS[1], 'lease_until'))
  if lease_until > now then return {'leased', tostring(lease_until)} end
end
local running = tonumber(redis.call('HGET', KEYS[4], account) or '0')
if status == 'running' then running = running - 1 end
local cap = tonumber(ARGV[3])
if cap > 0 and running >= cap then return {'cap'} end
if status == 'queued' then
  redis.call('HINCRBY', KEYS[3], account, -1)
  redis.call('HINCRBY', KEYS[4], account, 1)
  redis.call('ZREM', KEYS[5], redis.call('HGET', KEYS[1], 'id'))
end
local attempts = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
redis.call('HSET', KEYS[1], 'status', 'running', 'lease_token', ARGV[1], 'lease_until', now + tonumber(ARGV[2]))
redis.call('HSETNX', KEYS[1], 'started_at', now)
append(KEYS[1], KEYS[2], 'status', '{"status":"running","attempt":' .. attempts .. '}', now)
return {'ok'}
`;

/** Heartbeat. KEYS: job. ARGV: token, leaseMs. Returns 'ok' | 'lost' | 'cancelled'. */
export const HEARTBEAT = `${PRELUDE}
local fields = redis.call('HMGET', KEYS[1], 'status', 'lease_token')
if fields[2] ~= ARGV[1] then return 'lost' end
if fields[1] == 'cancelled' then return 'cancelled' end
if fields[1] ~= 'running' then return 'lost' end
redis.call('HSET', KEYS[1], 'lease_until', now_ms() + tonumber(ARGV[2]))
return 'ok'
`;

/** Append as the lease holder. KEYS: job, events. ARGV: token, type, data. Returns the event id or -1. */
export const APPEND = `${PRELUDE}
local fields = redis.call('HMGET', KEYS[1], 'status', 'lease_token')
if fields[1] ~= 'running' or fields[2] ~= ARGV[1] then return -1 end
return append(KEYS[1], KEYS[2], ARGV[2], ARGV[3], now_ms())
`;

/**
 * End as the lease holder (completed or failed), or cancel (ARGV token ''). KEYS: job, events, queued,
 * running, pending, ended. ARGV: token, status, result, error, credits. Returns 1 if it ended the job, else 0.
 */
export const END = `${PRELUDE}
local fields = redis.call('HMGET', KEYS[1], 'status', 'lease_token', 'account', 'id')
local status = fields[1]
if ARGV[1] ~= '' then
  if status ~= 'running' or fields[2] ~= ARGV[1] then return 0 end
elseif status ~= 'queued' and status ~= 'running' then
  return 0
end
local now = now_ms()
if status == 'queued' then
  redis.call('HINCRBY', KEYS[3], fields[3], -1)
  redis.call('ZREM', KEYS[5], fields[4])
else
  redis.call('HINCRBY', KEYS[4], fields[3], -1)
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'completed_at', now, 'result', ARGV[3], 'error', ARGV[4],
  'credits_used', ARGV[5])
redis.call('ZADD', KEYS[6], now, fields[4])
local data = '{"status":' .. cjson.encode(ARGV[2])
if ARGV[4] ~= '' then data = data .. ',"error":' .. ARGV[4] end
append(KEYS[1], KEYS[2], ARGV[2], data .. '}', now)
return 1
`;

/** Mark finalized. KEYS: job, ended. ARGV: id. */
export const FINALIZE = `
if redis.call('HEXISTS', KEYS[1], 'completed_at') == 1 then
  redis.call('HSET', KEYS[1], 'finalized', 1)
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return 1
`;

/** The scripts by command name (registered on the client with `defineCommand`). */
export const JOB_SCRIPTS = {
  citewiseJobEnqueue: { numberOfKeys: 6, lua: ENQUEUE },
  citewiseJobClaim: { numberOfKeys: 5, lua: CLAIM },
  citewiseJobHeartbeat: { numberOfKeys: 1, lua: HEARTBEAT },
  citewiseJobAppend: { numberOfKeys: 2, lua: APPEND },
  citewiseJobEnd: { numberOfKeys: 6, lua: END },
  citewiseJobFinalize: { numberOfKeys: 2, lua: FINALIZE },
} as const;
