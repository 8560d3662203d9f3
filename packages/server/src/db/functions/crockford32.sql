-- n (0 ≤ n < 32^8) as 8 digits of Crockford's base 32, the alphabet of ULIDs (ids.ts). A bulk send
-- names its messages `msg_<time><job random><crockford32(row)>` set-wise in SQL, so the ids keep
-- the ULID shape and time order of single sends (db/repositories/bulk.ts). Re-applied on every
-- migrate. A SQL function of plain expressions, so the planner inlines it.
CREATE OR REPLACE FUNCTION crockford32(n bigint) RETURNS text
LANGUAGE sql IMMUTABLE STRICT
AS $$
  SELECT substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((n >> 35) & 31)::int + 1, 1)
      || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((n >> 30) & 31)::int + 1, 1)
      || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((n >> 25) & 31)::int + 1, 1)
      || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((n >> 20) & 31)::int + 1, 1)
      || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((n >> 15) & 31)::int + 1, 1)
      || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((n >> 10) & 31)::int + 1, 1)
      || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((n >> 5) & 31)::int + 1, 1)
      || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (n & 31)::int + 1, 1)
$$;
