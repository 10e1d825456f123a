/**
 * Versioned schema migrations of the PostgreSQL stores. Each migration runs once, in order, inside one
 * transaction that holds an advisory lock, so several instances starting together apply it exactly once.
 * Never edit a released migration: add a new version.
 */
import type pg from 'pg';

/** One schema migration; `sql` receives the quoted schema name. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  sql(schema: string): string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'keys, credit accounts, reservations and ledger',
    sql: (s) => `
CREATE TABLE ${s}.api_keys (
  seq bigserial UNIQUE,
  id text PRIMARY KEY,
  hash text NOT NULL UNIQUE,
  account_id text NOT NULL,
  name text,
  prefix text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint,
  revoked_at bigint
);
CREATE INDEX api_keys_account ON ${s}.api_keys (account_id, seq);

CREATE TABLE ${s}.credit_accounts (
  account text PRIMARY KEY,
  -- What can still be reserved. The CHECK is the last line of defence: no statement can overspend.
  available bigint NOT NULL CHECK (available >= 0 AND available <= 9007199254740991),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);

CREATE TABLE ${s}.credit_reservations (
  id text PRIMARY KEY,
  account text NOT NULL,
  amount bigint NOT NULL CHECK (amount >= 0),
  status text NOT NULL CHECK (status IN ('held', 'committed', 'refunded', 'lapsed')),
  charged bigint CHECK (charged >= 0 AND charged <= amount),
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  settled_at bigint
);
CREATE INDEX credit_reservations_held ON ${s}.credit_reservations (account, expires_at) WHERE status = 'held';

-- Every change of a balance is a row: available = SUM(delta) per account; charged = credits spent for good.
CREATE TABLE ${s}.credit_ledger (
  seq bigserial PRIMARY KEY,
  account text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('open', 'grant', 'reserve', 'commit', 'refund', 'lapse')),
  reservation_id text,
  delta bigint NOT NULL,
  charged bigint NOT NULL DEFAULT 0 CHECK (charged >= 0),
  at bigint NOT NULL
);
CREATE INDEX credit_ledger_account ON ${s}.credit_ledger (account, seq);
-- A reservation is held once and settled (commit, refund or lapse) at most once.
CREATE UNIQUE INDEX credit_ledger_reserved_once ON ${s}.credit_ledger (reservation_id) WHERE kind = 'reserve';
CREATE UNIQUE INDEX credit_ledger_settled_once ON ${s}.credit_ledger (reservation_id)
  WHERE kind IN ('commit', 'refund', 'lapse');

-- The database's clock, in epoch ms: every instance agrees on it.
CREATE FUNCTION ${s}.now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

-- Returns the held credits of lapsed reservations of one account; called first by every write.
CREATE FUNCTION ${s}.sweep(p_account text, p_now bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE v_back bigint;
BEGIN
  WITH lapsed AS (
    UPDATE ${s}.credit_reservations SET status = 'lapsed', settled_at = p_now
    WHERE account = p_account AND status = 'held' AND expires_at <= p_now
    RETURNING id, amount
  ), logged AS (
    INSERT INTO ${s}.credit_ledger (account, kind, reservation_id, delta, at)
    SELECT p_account, 'lapse', id, amount, p_now FROM lapsed
  )
  SELECT COALESCE(sum(amount), 0) INTO v_back FROM lapsed;
  IF v_back > 0 THEN
    UPDATE ${s}.credit_accounts SET available = available + v_back, updated_at = p_now
    WHERE account = p_account;
  END IF;
  RETURN v_back;
END $$;

CREATE FUNCTION ${s}.open_account(p_account text, p_credits bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE v_now bigint := ${s}.now_ms();
BEGIN
  INSERT INTO ${s}.credit_accounts (account, available, created_at, updated_at)
  VALUES (p_account, p_credits, v_now, v_now) ON CONFLICT (account) DO NOTHING;
  IF NOT FOUND THEN RETURN false; END IF;
  INSERT INTO ${s}.credit_ledger (account, kind, delta, at) VALUES (p_account, 'open', p_credits, v_now);
  RETURN true;
END $$;

-- Adds credits (creating the account); returns the new balance, or -1 if it would pass 2^53 - 1.
CREATE FUNCTION ${s}.grant_credits(p_account text, p_amount bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE v_now bigint := ${s}.now_ms(); v_balance bigint;
BEGIN
  PERFORM ${s}.sweep(p_account, v_now);
  INSERT INTO ${s}.credit_accounts AS a (account, available, created_at, updated_at)
  VALUES (p_account, p_amount, v_now, v_now)
  ON CONFLICT (account) DO UPDATE SET available = a.available + EXCLUDED.available, updated_at = v_now
    WHERE a.available + EXCLUDED.available <= 9007199254740991
  RETURNING a.available INTO v_balance;
  IF NOT FOUND THEN RETURN -1; END IF;
  INSERT INTO ${s}.credit_ledger (account, kind, delta, at) VALUES (p_account, 'grant', p_amount, v_now);
  RETURN v_balance;
END $$;

-- Holds p_amount credits: the conditional UPDATE is the check-and-change (never below zero). A duplicate
-- id fails the INSERT (unique_violation), which rolls back the whole call.
CREATE FUNCTION ${s}.reserve(p_id text, p_account text, p_amount bigint, p_ttl_ms double precision,
  OUT o_reserved boolean, OUT o_available bigint, OUT o_expires_at bigint) LANGUAGE plpgsql AS $$
DECLARE v_now bigint := ${s}.now_ms();
BEGIN
  PERFORM ${s}.sweep(p_account, v_now);
  IF p_amount > 0 THEN
    UPDATE ${s}.credit_accounts SET available = available - p_amount, updated_at = v_now
    WHERE account = p_account AND available >= p_amount
    RETURNING available INTO o_available;
    IF NOT FOUND THEN
      o_reserved := false;
      SELECT available INTO o_available FROM ${s}.credit_accounts WHERE account = p_account;
      o_available := COALESCE(o_available, 0);
      RETURN;
    END IF;
  END IF;
  o_expires_at := ceil(v_now + p_ttl_ms)::bigint;
  INSERT INTO ${s}.credit_reservations (id, account, amount, status, created_at, expires_at)
  VALUES (p_id, p_account, p_amount, 'held', v_now, o_expires_at);
  INSERT INTO ${s}.credit_ledger (account, kind, reservation_id, delta, at)
  VALUES (p_account, 'reserve', p_id, -p_amount, v_now);
  o_reserved := true;
END $$;

-- Settles a live hold once: commit spends LEAST(p_actual, amount) (all if NULL) and returns the rest;
-- refund returns everything. The row lock on the reservation makes exactly one concurrent caller win.
CREATE FUNCTION ${s}.settle(p_id text, p_commit boolean, p_actual bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE v_now bigint := ${s}.now_ms(); v_account text; v_amount bigint; v_charged bigint;
BEGIN
  UPDATE ${s}.credit_reservations r
  SET status = CASE WHEN p_commit THEN 'committed' ELSE 'refunded' END,
      charged = CASE WHEN p_commit THEN LEAST(COALESCE(p_actual, r.amount), r.amount) ELSE 0 END,
      settled_at = v_now
  WHERE r.id = p_id AND r.status = 'held' AND r.expires_at > v_now
  RETURNING r.account, r.amount, r.charged INTO v_account, v_amount, v_charged;
  IF NOT FOUND THEN RETURN false; END IF;
  IF v_amount > v_charged THEN
    UPDATE ${s}.credit_accounts SET available = available + (v_amount - v_charged), updated_at = v_now
    WHERE account = v_account;
  END IF;
  INSERT INTO ${s}.credit_ledger (account, kind, reservation_id, delta, charged, at)
  VALUES (v_account, CASE WHEN p_commit THEN 'commit' ELSE 'refund' END, p_id, v_amount - v_charged,
          v_charged, v_now);
  RETURN true;
END $$;
`,
  },
  {
    version: 2,
    name: 'requests sent with an Idempotency-Key',
    sql: (s) => `
CREATE TABLE ${s}.idempotency_requests (
  scope text PRIMARY KEY,
  fingerprint text NOT NULL,
  -- NULL while the first request runs; then its response (status, headers, body) as JSON text.
  response text,
  -- Epoch ms (database clock): the claim's lease while running, then the replay time.
  expires_at bigint NOT NULL
);
CREATE INDEX idempotency_requests_expiry ON ${s}.idempotency_requests (expires_at);
`,
  },
  {
    version: 3,
    name: 'console: users, organizations, memberships, invitations, sessions, settings, usage',
    sql: (s) => `
CREATE TABLE ${s}.console_users (
  seq bigserial UNIQUE,
  id text PRIMARY KEY,
  email text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  operator boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL
);
CREATE TABLE ${s}.console_organizations (
  seq bigserial UNIQUE,
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at bigint NOT NULL,
  suspended_at bigint
);
CREATE TABLE ${s}.console_memberships (
  seq bigserial UNIQUE,
  organization_id text NOT NULL,
  user_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at bigint NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX console_memberships_by_user ON ${s}.console_memberships (user_id);
CREATE TABLE ${s}.console_invitations (
  seq bigserial UNIQUE,
  id text PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  organization_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_by text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  accepted_at bigint
);
CREATE TABLE ${s}.console_sessions (
  token_hash text PRIMARY KEY,
  id text NOT NULL,
  user_id text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX console_sessions_by_user ON ${s}.console_sessions (user_id);
CREATE TABLE ${s}.console_key_creators (
  key_id text PRIMARY KEY,
  organization_id text NOT NULL,
  user_id text NOT NULL
);
CREATE INDEX console_key_creators_by_org ON ${s}.console_key_creators (organization_id);
CREATE TABLE ${s}.console_settings (name text PRIMARY KEY, value text NOT NULL);
CREATE TABLE ${s}.console_usage (
  seq bigserial PRIMARY KEY,
  at bigint NOT NULL,
  account_id text NOT NULL,
  key_id text,
  kind text NOT NULL CHECK (kind IN ('charge', 'refund', 'grant')),
  credits bigint NOT NULL CHECK (credits >= 0),
  note text
);
CREATE INDEX console_usage_by_account ON ${s}.console_usage (account_id, at);
`,
  },
  {
    version: 4,
    name: 'budgets per key, audit log',
    sql: (s) => `
CREATE TABLE ${s}.api_key_budgets (
  key_id text PRIMARY KEY,
  credits bigint NOT NULL CHECK (credits >= 0 AND credits <= 9007199254740991),
  period text NOT NULL CHECK (period IN ('day', 'month', 'total')),
  updated_at bigint NOT NULL
);
-- One counter per key: what it spent (committed plus live holds) in budget_window; another window is 0.
CREATE TABLE ${s}.credit_budgets (
  account text NOT NULL,
  key_id text NOT NULL,
  budget_window text NOT NULL,
  spent bigint NOT NULL CHECK (spent >= 0),
  PRIMARY KEY (account, key_id)
);
-- The budget a live hold spends, so settlement and lapse give it back.
CREATE TABLE ${s}.credit_budget_holds (
  reservation_id text PRIMARY KEY,
  key_id text NOT NULL,
  budget_window text NOT NULL
);

-- Gives back to their budgets the holds in p_back (reservation id → credits returned).
CREATE FUNCTION ${s}.budget_give_back(p_account text, p_ids text[], p_amounts bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  WITH back AS (
    DELETE FROM ${s}.credit_budget_holds h
    USING unnest(p_ids, p_amounts) AS x(id, amount)
    WHERE h.reservation_id = x.id
    RETURNING h.key_id, h.budget_window, x.amount
  )
  UPDATE ${s}.credit_budgets b SET spent = GREATEST(0, b.spent - t.amount)
  FROM (SELECT key_id, budget_window, sum(amount) AS amount FROM back GROUP BY 1, 2) t
  WHERE b.account = p_account AND b.key_id = t.key_id AND b.budget_window = t.budget_window;
END $$;

CREATE OR REPLACE FUNCTION ${s}.sweep(p_account text, p_now bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE v_back bigint; v_ids text[]; v_amounts bigint[];
BEGIN
  WITH lapsed AS (
    UPDATE ${s}.credit_reservations SET status = 'lapsed', settled_at = p_now
    WHERE account = p_account AND status = 'held' AND expires_at <= p_now
    RETURNING id, amount
  ), logged AS (
    INSERT INTO ${s}.credit_ledger (account, kind, reservation_id, delta, at)
    SELECT p_account, 'lapse', id, amount, p_now FROM lapsed
  )
  SELECT COALESCE(sum(amount), 0), array_agg(id), array_agg(amount) INTO v_back, v_ids, v_amounts
  FROM lapsed;
  IF v_back > 0 THEN
    UPDATE ${s}.credit_accounts SET available = available + v_back, updated_at = p_now
    WHERE account = p_account;
  END IF;
  IF v_ids IS NOT NULL THEN PERFORM ${s}.budget_give_back(p_account, v_ids, v_amounts); END IF;
  RETURN v_back;
END $$;

-- Like reserve, and also spends p_amount of key p_key's budget (p_limit in window p_window). Refused
-- (o_reserved false) when the account's credits (o_budget false) or the budget (o_budget true) fall short;
-- o_available is then the account's credits or the budget's spend.
CREATE FUNCTION ${s}.reserve_with_budget(p_id text, p_account text, p_amount bigint,
  p_ttl_ms double precision, p_key text, p_limit bigint, p_window text,
  OUT o_reserved boolean, OUT o_budget boolean, OUT o_available bigint, OUT o_expires_at bigint)
LANGUAGE plpgsql AS $$
DECLARE v_now bigint := ${s}.now_ms();
BEGIN
  PERFORM ${s}.sweep(p_account, v_now);
  o_budget := false;
  IF p_amount > 0 THEN
    UPDATE ${s}.credit_accounts SET available = available - p_amount, updated_at = v_now
    WHERE account = p_account AND available >= p_amount
    RETURNING available INTO o_available;
    IF NOT FOUND THEN
      o_reserved := false;
      SELECT available INTO o_available FROM ${s}.credit_accounts WHERE account = p_account;
      o_available := COALESCE(o_available, 0);
      RETURN;
    END IF;
    INSERT INTO ${s}.credit_budgets (account, key_id, budget_window, spent)
    VALUES (p_account, p_key, p_window, 0) ON CONFLICT (account, key_id) DO NOTHING;
    -- The conditional UPDATE is the budget's check-and-change (the row lock orders concurrent callers).
    UPDATE ${s}.credit_budgets b
    SET spent = (CASE WHEN b.budget_window = p_window THEN b.spent ELSE 0 END) + p_amount,
        budget_window = p_window
    WHERE b.account = p_account AND b.key_id = p_key
      AND (CASE WHEN b.budget_window = p_window THEN b.spent ELSE 0 END) + p_amount <= p_limit;
    IF NOT FOUND THEN
      UPDATE ${s}.credit_accounts SET available = available + p_amount WHERE account = p_account;
      SELECT CASE WHEN budget_window = p_window THEN spent ELSE 0 END INTO o_available
      FROM ${s}.credit_budgets WHERE account = p_account AND key_id = p_key;
      o_reserved := false;
      o_budget := true;
      RETURN;
    END IF;
    INSERT INTO ${s}.credit_budget_holds (reservation_id, key_id, budget_window) VALUES (p_id, p_key, p_window);
  END IF;
  o_expires_at := ceil(v_now + p_ttl_ms)::bigint;
  INSERT INTO ${s}.credit_reservations (id, account, amount, status, created_at, expires_at)
  VALUES (p_id, p_account, p_amount, 'held', v_now, o_expires_at);
  INSERT INTO ${s}.credit_ledger (account, kind, reservation_id, delta, at)
  VALUES (p_account, 'reserve', p_id, -p_amount, v_now);
  o_reserved := true;
END $$;

CREATE OR REPLACE FUNCTION ${s}.settle(p_id text, p_commit boolean, p_actual bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE v_now bigint := ${s}.now_ms(); v_account text; v_amount bigint; v_charged bigint;
BEGIN
  UPDATE ${s}.credit_reservations r
  SET status = CASE WHEN p_commit THEN 'committed' ELSE 'refunded' END,
      charged = CASE WHEN p_commit THEN LEAST(COALESCE(p_actual, r.amount), r.amount) ELSE 0 END,
      settled_at = v_now
  WHERE r.id = p_id AND r.status = 'held' AND r.expires_at > v_now
  RETURNING r.account, r.amount, r.charged INTO v_account, v_amount, v_charged;
  IF NOT FOUND THEN RETURN false; END IF;
  IF v_amount > v_charged THEN
    UPDATE ${s}.credit_accounts SET available = available + (v_amount - v_charged), updated_at = v_now
    WHERE account = v_account;
  END IF;
  PERFORM ${s}.budget_give_back(v_account, ARRAY[p_id], ARRAY[v_amount - v_charged]);
  INSERT INTO ${s}.credit_ledger (account, kind, reservation_id, delta, charged, at)
  VALUES (v_account, CASE WHEN p_commit THEN 'commit' ELSE 'refund' END, p_id, v_amount - v_charged,
          v_charged, v_now);
  RETURN true;
END $$;

-- The audit log: append-only (a trigger refuses UPDATE); only the retention deletes the oldest rows.
CREATE TABLE ${s}.console_audit (
  seq bigserial PRIMARY KEY,
  at bigint NOT NULL,
  actor text NOT NULL,
  action text NOT NULL,
  organization_id text,
  target text,
  ip text,
  detail text
);
CREATE INDEX console_audit_by_organization ON ${s}.console_audit (organization_id, seq);
CREATE INDEX console_audit_by_time ON ${s}.console_audit (at);
CREATE FUNCTION ${s}.console_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'the audit log is append-only'; END $$;
CREATE TRIGGER console_audit_append_only BEFORE UPDATE ON ${s}.console_audit
  FOR EACH ROW EXECUTE FUNCTION ${s}.console_audit_append_only();

-- What key p_key of p_account has spent in window p_window (after returning lapsed holds).
CREATE FUNCTION ${s}.budget_spent(p_account text, p_key text, p_window text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE v_spent bigint;
BEGIN
  PERFORM ${s}.sweep(p_account, ${s}.now_ms());
  SELECT CASE WHEN budget_window = p_window THEN spent ELSE 0 END INTO v_spent
  FROM ${s}.credit_budgets WHERE account = p_account AND key_id = p_key;
  RETURN COALESCE(v_spent, 0);
END $$;
`,
  },
];

/** The newest schema version. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/**
 * Applies pending migrations to `schema` (creating it). Safe to run concurrently from many processes: an
 * advisory lock serialises them and each migration is recorded in the same transaction that applies it.
 * Returns the versions this call applied (empty when up to date).
 */
export async function migratePostgres(pool: pg.Pool, schema: string): Promise<number[]> {
  const quoted = quoteIdentifier(schema);
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`citewise:migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number }>(
      `SELECT COALESCE(max(version), 0) AS version FROM ${quoted}.schema_migrations`,
    );
    const current = rows[0]?.version ?? 0;
    if (current > POSTGRES_SCHEMA_VERSION) {
      throw new Error(
        `schema ${schema} is at version ${current}, newer than this citewise (${POSTGRES_SCHEMA_VERSION})`,
      );
    }
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.sql(quoted));
      await client.query(`INSERT INTO ${quoted}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    failed = true;
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release(failed);
  }
}

/** Validates a schema name (letters, digits, underscore) and quotes it. */
export function quoteIdentifier(name: string): string {
  if (typeof name !== 'string') throw new TypeError('schema must be a string');
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new RangeError('schema must be 1–63 letters, digits or underscores, not starting with a digit');
  }
  return `"${name}"`;
}
