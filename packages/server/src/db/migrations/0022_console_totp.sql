-- A console person's optional second factor (DESIGN.md §14): a TOTP secret (RFC 6238, 30-second
-- steps, 6 digits), set up and then confirmed with a code before sign-in asks for it. The secret
-- is kept as it is (a code is computed from it, so it cannot be hashed); last_counter is the last
-- step a code was accepted for, so a code is good once.
CREATE TABLE console_totp (
  email        text PRIMARY KEY,
  secret       bytea NOT NULL,
  created_at   timestamptz NOT NULL,
  enabled_at   timestamptz,
  last_counter bigint
);
