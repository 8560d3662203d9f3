// Contacts: the tenant's contacts, searched and paged, and its groups; a CSV file imported.
import { roleAllows } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import { Pager, useCursorPages } from '../components/pager.js';
import { AsyncView, DateTime, Field, PageTitle, StatusBadge, TableWrap, useAsync } from '../components/ui.js';
import { useConsole } from '../context.js';
import type { ListContactsResult } from '../sdk.js';
import { ContactImport } from './contact-import-form.js';

type Contact = ListContactsResult['contacts'][number];

function ContactTable({ contacts }: { contacts: Contact[] }) {
  return (
    <TableWrap label="Contacts">
      <table>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Groups</th>
            <th scope="col">Sent / bounced / complained</th>
            <th scope="col">Last emailed</th>
          </tr>
        </thead>
        <tbody>
          {contacts.map((c) => (
            <tr key={c.id}>
              <td>{c.email}</td>
              <td>{c.name ?? ''}</td>
              <td>
                <StatusBadge value={c.status} />
              </td>
              <td>{c.groupSlugs.join(', ')}</td>
              <td>
                {c.delivery.sent} / {c.delivery.bounced} / {c.delivery.complained}
              </td>
              <td>
                <DateTime iso={c.lastEmailedAt} empty="never" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** `refresh` changes after an import: the list is read again. */
function ContactList({ refresh }: { refresh: number }) {
  const { client } = useConsole();
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const state = useAsync(
    () => client.contacts.list({ ...(query && { search: query }), cursor, pageSize: 50 }),
    [client, query, cursor, refresh],
  );
  const submit = (event: Event) => {
    event.preventDefault();
    setQuery(text.trim());
    pages.reset();
  };
  return (
    <section aria-labelledby="contacts-h">
      <h2 id="contacts-h">Contacts</h2>
      <form class="inline-form" onSubmit={submit}>
        <Field id="contact-search" label="Email or name contains">
          <input
            id="contact-search"
            type="search"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="btn btn-primary">
          Search
        </button>
      </form>
      <AsyncView
        state={state}
        isEmpty={(d) => d.contacts.length === 0}
        empty={query ? 'No contacts match.' : 'No contacts yet.'}
      >
        {(d) => (
          <>
            <ContactTable contacts={d.contacts} />
            <Pager pages={pages} nextCursor={d.nextCursor} />
          </>
        )}
      </AsyncView>
    </section>
  );
}

function GroupList({ refresh }: { refresh: number }) {
  const { client } = useConsole();
  const state = useAsync(() => client.contacts.groups.list(), [client, refresh]);
  return (
    <section aria-labelledby="groups-h">
      <h2 id="groups-h">Groups</h2>
      <AsyncView state={state} isEmpty={(d) => d.groups.length === 0} empty="No groups yet.">
        {(d) => (
          <TableWrap label="Groups">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Slug</th>
                  <th scope="col">Contacts</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {d.groups.map((g) => (
                  <tr key={g.slug}>
                    <td>{g.name}</td>
                    <td>
                      <code>{g.slug}</code>
                    </td>
                    <td>{g.contactCount}</td>
                    <td>
                      <DateTime iso={g.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </AsyncView>
    </section>
  );
}

export function ContactsPage() {
  const { role } = useConsole();
  const [imports, setImports] = useState(0);
  return (
    <>
      <PageTitle title="Contacts">Contacts</PageTitle>
      {roleAllows(role, 'upsertContacts') ? (
        <ContactImport onImported={() => setImports((n) => n + 1)} />
      ) : null}
      <ContactList refresh={imports} />
      <GroupList refresh={imports} />
    </>
  );
}
