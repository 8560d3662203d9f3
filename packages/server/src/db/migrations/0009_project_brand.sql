-- A project's brand (issue 13): its mail shows the project's logo and colour instead of the same
-- look for every tenant, and notification mail carries the sender's postal address in its footer.
-- Checked by `mailsvc admin projects update` (domain/admin/brand.ts): the logo URL is https, the
-- colour is #rrggbb with white button text on it at 4.5:1 or more, the address is ≤ 5 lines.
ALTER TABLE projects
  ADD COLUMN brand_color    text CHECK (brand_color ~ '^#[0-9a-f]{6}$'),
  ADD COLUMN logo_url       text CHECK (logo_url LIKE 'https://%'),
  ADD COLUMN postal_address text;
